package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
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
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void anImageServedThroughTheGatewaySurvivesAnOsdDeathAndItsReturn() throws Exception {
    RequiredTools.command("nbdcopy", "libnbd-bin");
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      String monitors = cluster.monitors();
      ClusterGateway.createImage(monitors, "vol0", "6M");
      ClusterProcesses.Result listed = run("image", "ls", "--mon", monitors);
      assertTrue(listed.output().contains("vol0"), listed.output());
      try (ClusterGateway gateway = ClusterGateway.start(monitors)) {
        byte[] image = new byte[6 * MIB]; // the test OSDs hold about 11 MiB
        Random r = new Random(3);
        byte[] first = randomBytes(r, 3 * MIB);
        System.arraycopy(first, 0, image, 0, first.length);
        gateway.write("vol0", image, dir);
        assertArrayEquals(image, gateway.read("vol0", dir), "written and read back");

        int victim = cluster.osds().keySet().iterator().next();
        cluster.osds().get(victim).kill9();
        // No wait for the map: the gateway itself waits through the failover.
        byte[] second = randomBytes(r, 2 * MIB);
        System.arraycopy(second, 0, image, 3 * MIB, second.length);
        gateway.write("vol0", image, dir);
        assertArrayEquals(image, gateway.read("vol0", dir), "through the failover");

        OsdProcess back = startOsd(cluster.data().get(victim), monitors);
        cluster.osds().put(victim, back);
        assertEquals(victim, awaitRegistered(back));
        awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 3);
        assertArrayEquals(
            image, gateway.read("vol0", dir), "after its return (its PGs recovered first)");

        int other =
            cluster.osds().keySet().stream().filter(id -> id != victim).findFirst().orElseThrow();
        cluster.osds().get(other).kill9();
        assertArrayEquals(image, gateway.read("vol0", dir), "with the returned OSD serving");
      }
    }
  }

  private static byte[] randomBytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }
}
