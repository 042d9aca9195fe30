package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every OSD killed with SIGKILL at once while writes are in flight (one monitor, three OSDs, a pool
 * of size 3 and min_size 2), then all restarted: every acknowledged write reads back, a write that
 * was in flight reads back old or new but never garbage, the writers' ops in flight are finished by
 * the restarted cluster, and every PG's members end with the same log.
 */
class ClusterAllOsdsKilledIT {
  private static final String POOL = "all";

  @TempDir Path dir;

  @Test
  void acknowledgedWritesSurviveTheDeathOfEveryOsdAtOnce() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      ClusterProcesses.createPool(cluster.monitors(), POOL, 3, 2, 16);
      try (ClusterClient client = cluster.client(Duration.ofMinutes(2));
          VersionedWriters writers = new VersionedWriters(client, POOL, 4, 32)) {
        assertTrue(writers.awaitAcks(300, Duration.ofSeconds(60)), "writes before the kill");
        OsdProcess.kill9All(List.copyOf(cluster.osds().values()));
        long before = writers.acks();
        cluster.restartOsds(List.copyOf(cluster.osds().keySet()));
        // The writes in flight at the kill are sent again and acknowledged, and new ones follow.
        assertTrue(
            writers.awaitAcks(before + 300, Duration.ofSeconds(90)),
            "writes resume after the restart (" + writers.acks() + " acknowledged)");
        assertEquals(List.of(), writers.stopAndCheck());
      }
      ClusterProcesses.awaitActiveClean(cluster.monitors(), Duration.ofSeconds(120));
      try (ClusterClient client = cluster.client(Duration.ofSeconds(60));
          PgProbe probe = new PgProbe()) {
        probe.awaitAgreement(client, POOL, Duration.ofSeconds(60));
      }
    }
  }
}
