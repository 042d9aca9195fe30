package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitMonReady;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatusCommand;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startMon;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.it.ClusterProcesses.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three monitors, each a real process: they elect a leader and create the cluster; the leader
 * killed with SIGKILL, the two others elect another, keep the map and serve status and pool
 * commands; the killed monitor restarted catches up (its snapshot, then the leader's log or
 * snapshot) and rejoins the quorum.
 */
class ClusterThreeMonIT {
  private static final Duration ELECTION = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void theLeaderKilledTheOthersServeAndItCatchesUpOnRestart() throws Exception {
    Map<String, Integer> ports = new LinkedHashMap<>();
    List<Integer> free = ClusterProcesses.monPorts(3);
    for (String id : List.of("a", "b", "c")) {
      ports.put(id, free.get(ports.size()));
    }
    List<String> peerList = new ArrayList<>();
    List<String> addresses = new ArrayList<>();
    ports.forEach(
        (id, port) -> {
          peerList.add(id + "=127.0.0.1:" + port);
          addresses.add("127.0.0.1:" + port);
        });
    String peers = String.join(",", peerList);
    String monitors = String.join(",", addresses);
    Map<String, OsdProcess> mons = new LinkedHashMap<>();
    try {
      for (String id : ports.keySet()) {
        mons.put(id, startMonitor(id, ports.get(id), peers));
      }
      for (OsdProcess mon : mons.values()) {
        awaitMonReady(mon);
      }
      JsonNode formed =
          awaitStatusCommand(monitors, ELECTION, s -> s.path("quorum_names").size() == 3);
      // No OSD yet: once the cluster exists, pool rbd's PGs are inactive (PG_AVAILABILITY); the
      // monitors themselves are fine.
      assertTrue(
          checks(formed).stream().noneMatch(c -> c.startsWith("MON_")),
          "no monitor check: " + formed);
      assertEquals(3, formed.path("monmap").path("num_mons").asInt());
      String leader = formed.path("quorum_leader_name").asText();
      assertTrue(mons.containsKey(leader), formed.toString());

      try (OsdProcess osd = startOsd(dir.resolve("osd"), monitors)) {
        int id = awaitRegistered(osd);
        // A few changes so that the snapshot threshold (2) is crossed before the kill.
        for (String pool : List.of("p1", "p2", "p3")) {
          ClusterProcesses.createPool(monitors, pool, 1, 1, 8);
        }

        mons.get(leader).kill9();
        JsonNode after =
            awaitStatusCommand(
                monitors,
                ELECTION,
                s ->
                    s.path("quorum_names").size() == 2
                        && !s.path("quorum_leader_name").asText().equals(leader)
                        && !s.path("quorum_leader_name").asText().isEmpty());
        assertEquals("HEALTH_WARN", after.path("health").path("status").asText(), after.toString());
        assertTrue(after.path("health").path("checks").has("MON_DOWN"), after.toString());
        assertEquals(4, after.path("pgmap").path("num_pools").asInt(), "the map is kept");
        assertEquals(1, after.path("osdmap").path("num_up_osds").asInt(), after.toString());

        Result create = ClusterProcesses.poolCreate(monitors, "p4", 1, 1, 8);
        assertEquals(0, create.exit(), "two of three commit: " + create.output());
        Result rm = run("pool", "rm", "p1", "--mon", monitors);
        assertEquals(0, rm.exit(), rm.output());

        mons.put(leader, startMonitor(leader, ports.get(leader), peers));
        awaitMonReady(mons.get(leader));
        JsonNode healed =
            awaitStatusCommand(
                monitors,
                ELECTION,
                s -> {
                  long epoch = s.path("osdmap").path("epoch").asLong();
                  for (JsonNode m : s.path("monmap").path("mons")) {
                    if (m.path("name").asText().equals(leader)
                        && m.path("epoch").asLong() == epoch
                        && s.path("quorum_names").size() == 3) {
                      return true;
                    }
                  }
                  return false;
                });
        // One OSD: rbd (min_size 2) stays inactive and degraded; no monitor check is left.
        assertEquals(List.of("PG_AVAILABILITY", "PG_DEGRADED"), checks(healed), healed.toString());
        assertEquals(4, healed.path("pgmap").path("num_pools").asInt(), healed.toString());
        assertEquals(1, ClusterProcesses.osd(healed, id).path("up").asInt(), healed.toString());
        assertTrue(
            mons.get(leader).output().contains("loaded from snapshot"),
            "the restarted monitor started from its snapshot");
        Result ls = run("pool", "ls", "--mon", "127.0.0.1:" + ports.get(leader));
        assertTrue(ls.output().lines().anyMatch("p4"::equals), ls.output());
        assertTrue(ls.output().lines().noneMatch("p1"::equals), ls.output());
        assertNotEquals(leader, after.path("quorum_leader_name").asText());
      }
    } finally {
      for (OsdProcess mon : mons.values()) {
        mon.close();
      }
    }
  }

  private OsdProcess startMonitor(String id, int port, String peers) throws Exception {
    return startMon(id, dir.resolve("mon." + id), port, peers, "--snapshot-threshold", "2");
  }

  /** The names of a status's health checks. */
  private static List<String> checks(JsonNode status) {
    List<String> names = new ArrayList<>();
    status.path("health").path("checks").fieldNames().forEachRemaining(names::add);
    return names;
  }
}
