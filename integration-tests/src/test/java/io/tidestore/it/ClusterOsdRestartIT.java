package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OSDs killed with SIGKILL under writes and started again, on one cluster (one monitor, three
 * OSDs), each test on a pool of its own of size 3 and min_size 2 with its own writers, and each
 * ending with every PG active+clean and every PG's members holding the same log:
 *
 * <ul>
 *   <li>each OSD in turn, started again at once, before the monitors could mark it down: the map
 *       goes from one incarnation of it straight to the next, the PGs it is in start a new interval
 *       and recover what it missed, writes go on, and no read returns less than what was
 *       acknowledged;
 *   <li>every OSD at once while writes are in flight, then all restarted: every acknowledged write
 *       reads back, a write that was in flight reads back old or new but never garbage, and the
 *       writers' ops in flight are finished by the restarted cluster.
 * </ul>
 */
class ClusterOsdRestartIT {
  @TempDir static Path dir;
  private static ClusterProcesses.Cluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterProcesses.startCluster(dir, 3);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void osdsKilledAndStartedAgainAtOnceLoseNothing() throws Exception {
    underWriters(
        "qr",
        200,
        (client, writers) -> {
          for (int id : new TreeSet<>(cluster.osds().keySet())) {
            long upFrom = client.map().osds().get(id).upFrom();
            cluster.osds().get(id).kill9();
            cluster.restartOsd(id);
            assertTrue(
                client.awaitMap(
                    m -> m.osds().get(id).up() && m.osds().get(id).upFrom() > upFrom,
                    Duration.ofSeconds(30)),
                "osd." + id + " up again in a new incarnation");
            long now = writers.acks();
            assertTrue(
                writers.awaitAcks(now + 100, Duration.ofSeconds(60)),
                "writes go on after osd." + id + " came back (" + writers.acks() + ")");
          }
        });
  }

  @Test
  void acknowledgedWritesSurviveTheDeathOfEveryOsdAtOnce() throws Exception {
    underWriters(
        "all",
        300,
        (client, writers) -> {
          OsdProcess.kill9All(List.copyOf(cluster.osds().values()));
          long before = writers.acks();
          cluster.restartOsds(List.copyOf(cluster.osds().keySet()));
          // The writes in flight at the kill are sent again and acknowledged, and new ones follow.
          assertTrue(
              writers.awaitAcks(before + 300, Duration.ofSeconds(90)),
              "writes resume after the restart (" + writers.acks() + " acknowledged)");
        });
  }

  /** What a test does to the OSDs while the writers write. */
  @FunctionalInterface
  private interface Kills {
    void run(ClusterClient client, VersionedWriters writers) throws Exception;
  }

  /**
   * Creates {@code pool} (size 3, min_size 2, 16 PGs), starts 4 writers over 32 of its objects,
   * runs {@code kills} once {@code first} writes were acknowledged, then checks every read the
   * writers made and every object, and that the cluster ends clean with every log agreeing.
   */
  private static void underWriters(String pool, int first, Kills kills) throws Exception {
    ClusterProcesses.createPool(cluster.monitors(), pool, 3, 2, 16);
    try (ClusterClient client = cluster.client(Duration.ofMinutes(2));
        VersionedWriters writers = new VersionedWriters(client, pool, 4, 32)) {
      assertTrue(writers.awaitAcks(first, Duration.ofSeconds(60)), "writes before the kills");
      kills.run(client, writers);
      assertEquals(List.of(), writers.stopAndCheck());
    }
    cleanAndAgreed(pool);
  }

  /** Every PG active+clean, then every PG of {@code pool} with the same log on each member. */
  private static void cleanAndAgreed(String pool) throws Exception {
    ClusterProcesses.awaitActiveClean(cluster.monitors(), Duration.ofSeconds(120));
    try (ClusterClient client = cluster.client(Duration.ofSeconds(60));
        PgProbe probe = new PgProbe()) {
      probe.awaitAgreement(client, pool, Duration.ofSeconds(60));
    }
  }
}
