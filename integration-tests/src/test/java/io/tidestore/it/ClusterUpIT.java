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
 * them; {@code status --dir} finds them; {@code cluster down} stops every one.
 */
class ClusterUpIT {
  private static final Pattern PID = Pattern.compile("pid (\\d+)");

  @TempDir Path dir;

  @Test
  void upStatusDown() throws Exception {
    Path cluster = dir.resolve("c");
    List<Long> pids = new ArrayList<>();
    try {
      OsdProcess up = OsdProcess.start("cluster", "up", "--dir", cluster.toString(), "--osds", "3");
      int exit = up.awaitExit(Duration.ofMinutes(3));
      for (String line : up.lines()) {
        Matcher m = PID.matcher(line);
        if (line.startsWith("started ") && m.find()) {
          pids.add(Long.parseLong(m.group(1)));
        }
      }
      assertEquals(0, exit, up.output());
      assertEquals(4, pids.size(), "one monitor and three OSDs: " + up.output());
      assertTrue(up.output().contains("export TIDESTORE_MON=127.0.0.1:"), up.output());
      assertTrue(Files.isRegularFile(cluster.resolve("cluster.json")));

      Result status =
          ClusterProcesses.run("status", "--dir", cluster.toString(), "--format", "json");
      assertEquals(0, status.exit(), status.output());
      String out = status.output();
      JsonNode s = new ObjectMapper().readTree(out.substring(out.indexOf('{')));
      assertEquals(3, s.path("osdmap").path("num_up_osds").asInt(), s.toString());
      assertEquals(3, s.path("osdmap").path("num_in_osds").asInt(), s.toString());
      assertEquals("HEALTH_OK", s.path("health").path("status").asText(), s.toString());

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
