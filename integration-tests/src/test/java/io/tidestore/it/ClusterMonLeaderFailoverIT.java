package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.client.ClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The monitor leader killed with SIGKILL under client writes (three monitors, three OSDs, a pool of
 * size 3 and min_size 2), and an OSD killed right after: the new leader marks that OSD down (it
 * counts the grace from its election), the PGs it was in go on with two members, writes resume, and
 * nothing acknowledged is lost. ({@link ClusterThreeMonIT} covers the monitors' own failover and
 * catch-up; this is the OSDs' and clients' side of it.)
 */
class ClusterMonLeaderFailoverIT {
  private static final String POOL = "mf";

  @TempDir Path dir;

  @Test
  void writesGoOnWhenTheLeaderDiesAndAnOsdRightAfter() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3, 3)) {
      String monitors = cluster.monitors();
      ClusterProcesses.createPool(monitors, POOL, 3, 2, 16);
      String leader =
          awaitStatus(
                  monitors,
                  Duration.ofSeconds(30),
                  s ->
                      s.path("quorum_names").size() == 3
                          && cluster.mons().containsKey(s.path("quorum_leader_name").asText()))
              .path("quorum_leader_name")
              .asText();
      int victim = cluster.osds().keySet().iterator().next();
      try (ClusterClient client = cluster.client(Duration.ofMinutes(2));
          VersionedWriters writers = new VersionedWriters(client, POOL, 4, 32)) {
        assertTrue(writers.awaitAcks(200, Duration.ofSeconds(60)), "writes before the kills");
        cluster.mons().get(leader).kill9();
        cluster.osds().get(victim).kill9();
        JsonNode after =
            awaitStatus(
                monitors,
                Duration.ofSeconds(60),
                s ->
                    !s.path("quorum_leader_name").asText().isEmpty()
                        && !s.path("quorum_leader_name").asText().equals(leader)
                        && ClusterProcesses.osd(s, victim).path("up").asInt() == 0);
        assertEquals(2, after.path("osdmap").path("num_up_osds").asInt(), after.toString());
        long resumed = writers.acks();
        assertTrue(
            writers.awaitAcks(resumed + 200, Duration.ofSeconds(60)),
            "writes resume with two OSDs and two monitors (" + writers.acks() + " acknowledged)");
        assertEquals(List.of(), writers.stopAndCheck());
      }
    }
  }
}
