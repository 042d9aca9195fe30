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
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NBD gateway ({@code tidestore nbd --mon}) over a real cluster (one monitor, three OSDs, pool
 * rbd of size 3 and min_size 2), driven by libnbd's nbdcopy: an image made with {@code image create
 * --mon} is written and read back; one OSD is killed with SIGKILL and the gateway keeps serving
 * with no error, old data and new; the OSD comes back, is recovered, and with another OSD killed
 * the image still reads back whole. A thin image trimmed and zeroed through the gateway shows its
 * holes to {@code nbdinfo --map} (the primaries punch blocks and report allocation), reads zeros
 * where it was trimmed, and does so on the other replicas once the primary is gone.
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
      ClusterGateway.createImageCommand(monitors, "vol0", "6M");
      ClusterProcesses.Result listed = run("image", "ls", "--mon", monitors);
      assertTrue(listed.output().contains("vol0"), listed.output());
      try (ClusterGateway gateway = ClusterGateway.start(monitors)) {
        byte[] image = new byte[6 * MIB]; // the test OSDs hold about 11 MiB
        Random r = new Random(3);
        byte[] first = randomBytes(r, 3 * MIB);
        System.arraycopy(first, 0, image, 0, first.length);
        gateway.write("vol0", image, dir);
        assertArrayEquals(image, gateway.read("vol0", dir), "written and read back");
        ClusterGateway.createImage(monitors, "thin", 16 * MIB);
        gateway.nbdsh("thin", THIN_WRITES, dir);
        assertEquals(THIN_DATA, gateway.dataExtents("thin", dir), "holes through the gateway");
        gateway.nbdsh("thin", THIN_READS, dir);

        int victim = cluster.osds().keySet().iterator().next();
        cluster.osds().get(victim).kill9();
        // No wait for the map: the gateway itself waits through the failover.
        byte[] second = randomBytes(r, 2 * MIB);
        System.arraycopy(second, 0, image, 3 * MIB, second.length);
        gateway.write("vol0", image, dir);
        assertArrayEquals(image, gateway.read("vol0", dir), "through the failover");
        gateway.nbdsh("thin", THIN_READS, dir);
        assertEquals(THIN_DATA, gateway.dataExtents("thin", dir), "holes on the other replicas");

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

  /**
   * Writes into a thin image of four 4 MiB objects, then frees: a block of object 0, four blocks
   * inside object 2, and object 3 whole (which a zero of all of it removes).
   */
  private static final String THIN_WRITES =
      """
      h.pwrite(b"\\x11" * 8192, 0)
      h.pwrite(b"\\x22" * 4096, 5 << 20)
      h.pwrite(b"\\x33" * 65536, 8 << 20)
      h.trim(4096, 0)
      h.trim(16384, (8 << 20) + 16384)
      h.pwrite(b"\\x44" * 4096, 13 << 20)
      h.zero(4 << 20, 12 << 20)
      """;

  /** What the thin image reads back: zeros where it was freed, the rest as written. */
  private static final String THIN_READS =
      """
      assert h.pread(4096, 0) == bytes(4096)
      assert h.pread(4096, 4096) == b"\\x11" * 4096
      assert h.pread(4096, 5 << 20) == b"\\x22" * 4096
      assert h.pread(16384, (8 << 20) + 16384) == bytes(16384)
      assert h.pread(32768, (8 << 20) + 32768) == b"\\x33" * 32768
      assert h.pread(4096, 13 << 20) == bytes(4096)
      """;

  /** The data extents of the thin image: everything else is a hole. */
  private static final List<String> THIN_DATA =
      List.of("4096+4096", (5 * MIB) + "+4096", (8 * MIB) + "+16384", (8 * MIB + 32768) + "+32768");

  private static byte[] randomBytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }
}
