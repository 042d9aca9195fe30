package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.it.ClusterProcesses.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster up} starts a monitor and three OSDs as detached processes and says how to reach
 * them; {@code status --dir} finds them; {@code cluster down} stops every one. With {@code --tls}
 * (one OSD, to spare the cores) every link is TLS and {@code status --dir} uses the certificates it
 * issued.
 */
class ClusterUpIT {
  private static final Pattern PID = Pattern.compile("pid (\\d+)");

  @TempDir Path dir;

  @Test
  void upStatusDown() throws Exception {
    upStatusDown(1, false);
  }

  /**
   * Three monitors and three OSDs: the monitors elect and commit over Raft's mutual TLS, and an
   * image written through the cluster crosses the OSDs' own TLS links too.
   */
  @Test
  void upStatusDownWithTls() throws Exception {
    upStatusDown(3, true);
  }

  private void upStatusDown(int osds, boolean tls) throws Exception {
    Path cluster = dir.resolve("c");
    List<Long> pids = new ArrayList<>();
    try {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "cluster", "up", "--dir", cluster.toString(), "--osds", Integer.toString(osds)));
      int mons = tls ? 3 : 1;
      if (tls) {
        args.addAll(List.of("--tls", "--mons", "3"));
      }
      OsdProcess up = OsdProcess.start(args.toArray(String[]::new));
      int exit = up.awaitExit(Duration.ofMinutes(3));
      for (String line : up.lines()) {
        Matcher m = PID.matcher(line);
        if (line.startsWith("started ") && m.find()) {
          pids.add(Long.parseLong(m.group(1)));
        }
      }
      assertEquals(0, exit, up.output());
      assertEquals(mons + osds, pids.size(), "the monitors and the OSDs: " + up.output());
      assertTrue(up.output().contains("export TIDESTORE_MON=127.0.0.1:"), up.output());
      assertEquals(tls, up.output().contains("export TIDESTORE_TLS_CERTIFICATES="), up.output());
      assertTrue(Files.isRegularFile(cluster.resolve("cluster.json")));

      Result status =
          ClusterProcesses.run("status", "--dir", cluster.toString(), "--format", "json");
      assertEquals(0, status.exit(), status.output());
      String out = status.output();
      JsonNode s = new ObjectMapper().readTree(out.substring(out.indexOf('{')));
      assertEquals(osds, s.path("osdmap").path("num_up_osds").asInt(), s.toString());
      assertEquals(osds, s.path("osdmap").path("num_in_osds").asInt(), s.toString());
      if (osds >= 3) { // pool rbd has size 3: fewer OSDs leave its PGs undersized (HEALTH_WARN)
        assertEquals("HEALTH_OK", s.path("health").path("status").asText(), s.toString());
      }
      if (tls) {
        String monitors = s.path("monmap").path("mons").path(0).path("addr").asText();
        Result plaintext = ClusterProcesses.run("status", "--mon", monitors);
        assertEquals(1, plaintext.exit(), plaintext.output());
        assertTrue(plaintext.output().contains("speaks TLS only"), plaintext.output());
        // The client reaches each PG's primary over TLS, which replicates to the others over
        // theirs (the OSDs' certificates): the image's header is acknowledged by all three.
        String pki =
            up.lines().stream()
                .filter(l -> l.contains("export TIDESTORE_TLS_CERTIFICATES="))
                .map(l -> l.substring(l.indexOf('=') + 1).strip())
                .findFirst()
                .orElseThrow();
        Result create =
            ClusterProcesses.run(
                "image",
                "--tls-certificates",
                pki,
                "create",
                "vol0",
                "--size",
                "8M",
                "--mon",
                monitors);
        assertEquals(0, create.exit(), create.output());
        Result info =
            ClusterProcesses.run(
                "image", "--tls-certificates", pki, "info", "vol0", "--mon", monitors);
        assertEquals(0, info.exit(), info.output());
        assertTrue(info.output().contains("size: 8388608 bytes"), info.output());
      }

      Result down = ClusterProcesses.run("cluster", "down", "--dir", cluster.toString());
      assertEquals(0, down.exit(), down.output());
      assertTrue(down.output().contains("mon.a stopped"), down.output());
      for (long pid : pids) {
        assertFalse(
            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
            "pid " + pid + " still runs after cluster down");
      }
    } finally {
      // The daemons are detached (setsid): never leave one behind when an assertion failed.
      for (long pid : pids) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }
}
