package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each OSD in turn killed with SIGKILL under writes and started again at once, before the monitors
 * could mark it down (one monitor, three OSDs, a pool of size 3 and min_size 2): the map goes from
 * one incarnation of it straight to the next, the PGs it is in start a new interval and recover
 * what it missed, writes go on, and no read returns less than what was acknowledged.
 */
class ClusterQuickRestartIT {
  private static final String POOL = "qr";

  @TempDir Path dir;

  @Test
  void osdsKilledAndStartedAgainAtOnceLoseNothing() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      ClusterProcesses.createPool(cluster.monitors(), POOL, 3, 2, 16);
      try (ClusterClient client = cluster.client(Duration.ofMinutes(2));
          VersionedWriters writers = new VersionedWriters(client, POOL, 4, 32)) {
        assertTrue(writers.awaitAcks(200, Duration.ofSeconds(60)), "writes before the kills");
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
