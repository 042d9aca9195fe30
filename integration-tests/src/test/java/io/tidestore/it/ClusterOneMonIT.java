package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitMonReady;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatusCommand;
import static io.tidestore.it.ClusterProcesses.osd;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startMon;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static io.tidestore.it.ClusterProcesses.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.it.ClusterProcesses.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One monitor and two cluster-mode OSDs, every one a real process: the cluster is created with pool
 * rbd, pools are created, listed and removed, OSDs get ids that survive a restart, and an OSD
 * killed with SIGKILL is marked down after the grace, out after the down-out interval, and up and
 * in again when it comes back.
 */
class ClusterOneMonIT {
  private static final Duration GRACE = Duration.ofSeconds(2);
  private static final Duration DOWN_OUT = Duration.ofSeconds(3);

  /** How often an OSD heartbeats the monitors. */
  private static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /** Mark-down waits for the grace plus one detector tick and a commit: generous on 2 cores. */
  private static final Duration SLACK = Duration.ofSeconds(8);

  /** How long the OSDs may take to peer every PG once they are up. */
  private static final Duration PEERED = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void poolsRegistrationAndFailureDetection() throws Exception {
    int port = ClusterProcesses.freePortPair();
    String monitors = "127.0.0.1:" + port;
    try (OsdProcess mon =
        startMon(
            "a",
            dir.resolve("mon.a"),
            port,
            null,
            "--osd-heartbeat-grace",
            GRACE.toSeconds() + "s",
            "--mon-osd-down-out-interval",
            DOWN_OUT.toSeconds() + "s",
            "--failure-domain",
            "osd")) {
      int monMetrics = awaitMonReady(mon);
      mon.awaitLine("created the cluster", ClusterProcesses.START);

      pools(monitors);

      Path data0 = dir.resolve("osd.a");
      Path data1 = dir.resolve("osd.b");
      int id0;
      int id1;
      try (OsdProcess osd0 = startOsd(data0, monitors);
          OsdProcess osd1 = startOsd(data1, monitors)) {
        id0 = awaitRegistered(osd0);
        id1 = awaitRegistered(osd1);
        assertNotEquals(id0, id1);
        osd0.awaitLine("--nbd-port 0 is ignored", ClusterProcesses.START);
        int osdMetrics = osd0.awaitReady();
        // Two OSDs for pool rbd's size 3: once peered, every PG serves, one copy short.
        JsonNode s = awaitStatusCommand(monitors, PEERED, ClusterOneMonIT::allActive);
        assertEquals(2, s.path("osdmap").path("num_osds").asInt(), s.toString());
        assertEquals(2, s.path("osdmap").path("num_up_osds").asInt(), s.toString());
        assertEquals(2, s.path("osdmap").path("num_in_osds").asInt(), s.toString());
        assertEquals(
            "[{\"state_name\":\"active+undersized+degraded\",\"count\":64}]",
            s.path("pgmap").path("pgs_by_state").toString(),
            s.toString());
        assertEquals(List.of("PG_DEGRADED"), checks(s), s.toString());
        assertEquals("it-host", osd(s, id0).path("host").asText());
        assertEquals("[\"a\"]", s.path("quorum_names").toString(), s.toString());
        assertTrue(
            OsdProcess.httpGet(osdMetrics, "/metrics").contains("tidestore_osd_map_epoch"),
            "the OSD exports its map epoch");
        String monScrape = OsdProcess.httpGet(monMetrics, "/metrics");
        assertTrue(monScrape.contains("tidestore_mon_leader 1.0"), monScrape);
        assertTrue(monScrape.contains("tidestore_mon_osds_up 2.0"), monScrape);
        deletedPoolLeavesTheOsds(port, monitors, List.of(osdMetrics, osd1.awaitReady()));

        long killedAt = System.nanoTime();
        osd1.kill9();
        mon.awaitLine("marking down", GRACE.plus(SLACK));
        // The grace runs from the last heartbeat, up to one interval (1 s) before the kill.
        assertTrue(
            System.nanoTime() - killedAt >= GRACE.minus(HEARTBEAT).toNanos(),
            "marked down before the grace ran out");
        JsonNode down = status(monitors);
        assertEquals(0, osd(down, id1).path("up").asInt(), down.toString());
        assertEquals(1, osd(down, id1).path("in").asInt(), "down, not yet out: " + down);
        assertEquals(1, osd(down, id0).path("up").asInt(), down.toString());
        assertEquals("HEALTH_WARN", down.path("health").path("status").asText());
        assertTrue(down.path("health").path("checks").has("OSD_DOWN"), down.toString());

        mon.awaitLine("marking out", DOWN_OUT.plus(SLACK));
        JsonNode out = status(monitors);
        assertEquals(0, osd(out, id1).path("in").asInt(), out.toString());
        assertEquals(1, out.path("osdmap").path("num_in_osds").asInt(), out.toString());
        assertTrue(
            out.path("osdmap").path("epoch").asLong() > down.path("osdmap").path("epoch").asLong(),
            "every change is a new epoch");

        try (OsdProcess back = startOsd(data1, monitors)) {
          assertEquals(id1, awaitRegistered(back), "the id is kept in the data directory");
          back.awaitReady();
          JsonNode up = awaitStatusCommand(monitors, PEERED, ClusterOneMonIT::allActive);
          assertEquals(1, osd(up, id1).path("up").asInt(), up.toString());
          assertEquals(1, osd(up, id1).path("in").asInt(), up.toString());
          assertEquals(List.of("PG_DEGRADED"), checks(up), up.toString());
        }
      }
    }
  }

  /** Pool rbd exists from the start; create, list, refuse a duplicate, remove. */
  /**
   * A deleted pool's objects leave the OSDs: 20 objects written into a new pool, the pool removed,
   * and the objects the OSDs store go back to what they were before (StrayRemoval's purge).
   */
  private static void deletedPoolLeavesTheOsds(int monPort, String monitors, List<Integer> metrics)
      throws Exception {
    List<Double> before = new ArrayList<>();
    for (int port : metrics) {
      before.add(Scrape.sum(Scrape.metrics(port), OBJECTS));
    }
    ClusterProcesses.createPool(monitors, "gone", 2, 1, 8);
    try (ClusterClient client = ClusterProcesses.client(monPort)) {
      new ClusterObjects("gone").write(client, new Random(7), "g", 20);
    }
    // Store meters come from shard snapshots up to a second old: look until they show the writes.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    double added;
    while (true) {
      added = 0;
      for (int i = 0; i < metrics.size(); i++) {
        added += Scrape.sum(Scrape.metrics(metrics.get(i)), OBJECTS) - before.get(i);
      }
      if (added >= 20 || System.nanoTime() > deadline) {
        break;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    assertTrue(added >= 20, "the OSDs store " + added + " more objects, not the pool's 20");
    try (MonClient client = ClusterProcesses.monClient(monitors)) {
      client.poolRemove("gone");
    }
    // Each OSD purges on the map without the pool: its count goes back to what it was.
    for (int i = 0; i < metrics.size(); i++) {
      Scrape.awaitSum(metrics.get(i), OBJECTS, before.get(i));
    }
  }

  /** The objects an OSD's store holds, every shard. */
  private static final String OBJECTS = "tidestore_store_objects";

  /** Whether every PG serves I/O (no PG_AVAILABILITY check) with every OSD up. */
  private static boolean allActive(JsonNode status) {
    return !status.path("health").path("checks").has("PG_AVAILABILITY")
        && status.path("osdmap").path("num_up_osds").asInt()
            == status.path("osdmap").path("num_osds").asInt();
  }

  private static List<String> checks(JsonNode status) {
    List<String> names = new ArrayList<>();
    status.path("health").path("checks").fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static void pools(String monitors) throws Exception {
    Result ls = run("pool", "ls", "--mon", monitors);
    assertEquals(0, ls.exit(), ls.output());
    assertTrue(ls.output().lines().anyMatch("rbd"::equals), ls.output());

    Result create = ClusterProcesses.poolCreate(monitors, "vms", 2, 1, 16);
    assertEquals(0, create.exit(), create.output());
    Result detail = run("pool", "ls", "--detail", "--mon", monitors);
    assertTrue(
        detail.output().contains("'vms' replicated size 2 min_size 1 pg_num 16 failure_domain osd"),
        detail.output());
    assertTrue(
        detail.output().contains("'rbd' replicated size 3 min_size 2 pg_num 64"), detail.output());

    Result again = ClusterProcesses.poolCreate(monitors, "vms", 2, 1, 16);
    assertNotEquals(0, again.exit(), again.output());
    assertTrue(again.output().contains("already exists"), again.output());
    Result bad = ClusterProcesses.poolCreate(monitors, "bad", 2, 3, 16);
    assertNotEquals(0, bad.exit(), bad.output());
    assertTrue(bad.output().contains("--min-size"), bad.output());

    Result rm = run("pool", "rm", "vms", "--mon", monitors);
    assertEquals(0, rm.exit(), rm.output());
    Result after = run("pool", "ls", "--mon", monitors);
    assertTrue(after.output().lines().noneMatch("vms"::equals), after.output());
    JsonNode s = status(monitors);
    assertEquals(64, s.path("pgmap").path("num_pgs").asInt(), s.toString());
  }
}
