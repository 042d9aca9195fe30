package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NBD gateway ({@code tidestore nbd --mon}) over a real cluster (one monitor, three OSDs, pool
 * rbd of size 3 and min_size 2), driven by libnbd's nbdcopy: an image made with {@code image create
 * --mon} is written and read back; one OSD is killed with SIGKILL and the gateway keeps serving
 * with no error, old data and new; the OSD comes back, is recovered, and with another OSD killed
 * the image still reads back whole.
 */
class ClusterGatewayIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);
  private static final Pattern NBD_PORT = Pattern.compile("nbd=(\\d+)");
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void anImageServedThroughTheGatewaySurvivesAnOsdDeathAndItsReturn() throws Exception {
    RequiredTools.command("nbdcopy", "libnbd-bin");
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      String monitors = cluster.monitors();
      ClusterProcesses.Result created =
          run("image", "create", "vol0", "--size", "6M", "--mon", monitors);
      assertEquals(0, created.exit(), created.output());
      ClusterProcesses.Result listed = run("image", "ls", "--mon", monitors);
      assertTrue(listed.output().contains("vol0"), listed.output());
      try (OsdProcess gateway =
          OsdProcess.start("nbd", "--mon", monitors, "--nbd-port", "0", "--op-timeout", "2m")) {
        Matcher m =
            NBD_PORT.matcher(
                gateway.awaitLine("tidestore nbd gateway ready", ClusterProcesses.START));
        assertTrue(m.find(), gateway.output());
        String uri = "nbd://127.0.0.1:" + m.group(1) + "/vol0";

        byte[] image = new byte[6 * MIB]; // the test OSDs hold about 11 MiB
        Random r = new Random(3);
        byte[] first = randomBytes(r, 3 * MIB);
        System.arraycopy(first, 0, image, 0, first.length);
        copyIn(first, uri);
        assertArrayEquals(image, copyOut(uri), "written and read back");

        int victim = cluster.osds().keySet().iterator().next();
        cluster.osds().get(victim).kill9();
        // No wait for the map: the gateway itself waits through the failover.
        byte[] second = randomBytes(r, 2 * MIB);
        System.arraycopy(second, 0, image, 3 * MIB, second.length);
        copyIn(second, uri, 3 * MIB);
        assertArrayEquals(image, copyOut(uri), "through the failover");

        OsdProcess back = startOsd(cluster.data().get(victim), monitors);
        cluster.osds().put(victim, back);
        assertEquals(victim, awaitRegistered(back));
        awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 3);
        assertArrayEquals(image, copyOut(uri), "after its return (its PGs recovered first)");

        int other =
            cluster.osds().keySet().stream().filter(id -> id != victim).findFirst().orElseThrow();
        cluster.osds().get(other).kill9();
        assertArrayEquals(image, copyOut(uri), "with the returned OSD serving");
      }
    }
  }

  private static byte[] randomBytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private void copyIn(byte[] data, String uri) throws Exception {
    copyIn(data, uri, 0);
  }

  /** nbdcopy of {@code data} into the image at {@code offset} (via a file of the whole image). */
  private void copyIn(byte[] data, String uri, int offset) throws Exception {
    Path file = Files.createTempFile(dir, "in", ".img");
    byte[] whole = copyOut(uri);
    System.arraycopy(data, 0, whole, offset, data.length);
    Files.write(file, whole);
    nbdcopy(file.toString(), uri);
  }

  private byte[] copyOut(String uri) throws Exception {
    Path file = dir.resolve("out.img");
    Files.deleteIfExists(file);
    nbdcopy(uri, file.toString());
    return Files.readAllBytes(file);
  }

  private void nbdcopy(String from, String to) throws Exception {
    Path log = Files.createTempFile(dir, "nbdcopy", ".txt");
    Process p =
        new ProcessBuilder(List.of("nbdcopy", from, to))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("nbdcopy timed out");
    }
    assertEquals(0, p.exitValue(), "nbdcopy " + from + " " + to + ": " + Files.readString(log));
  }
}
