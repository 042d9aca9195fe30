package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitMonReady;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.awaitStatusCommand;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startMon;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.it.ClusterProcesses.Result;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement against real processes (one monitor, three OSDs): {@code osd map} and {@code pg dump}
 * print what the test computes itself from the map it fetches, three distinct OSDs per PG of pool
 * rbd (failure domain osd, from the monitor's flag); an OSD killed with SIGKILL leaves every up set
 * once it is marked down (its PGs serve, degraded), and with two of three down the PGs are
 * undersized and inactive. PG states are the monitors', from the primaries' reports.
 */
class ClusterPlacementIT {
  private static final Duration GRACE = Duration.ofSeconds(2);
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern OSD_MAP =
      Pattern.compile(
          "^osdmap e(\\d+) pool 'rbd' \\(1\\) object 'foo' -> pg 1\\.([0-9a-f]+) \\(1\\.([0-9a-f]+)\\)"
              + " -> up \\(\\[([0-9,]*)\\], p(-?\\d+)\\) acting \\(\\[([0-9,]*)\\], p(-?\\d+)\\)$");

  @TempDir Path dir;

  @Test
  void osdMapAndPgDumpFollowTheMap() throws Exception {
    int port = ClusterProcesses.freePortPair();
    String monitors = "127.0.0.1:" + port;
    List<OsdProcess> osds = new ArrayList<>();
    try (OsdProcess mon =
            startMon(
                "a",
                dir.resolve("mon.a"),
                port,
                null,
                "--osd-heartbeat-grace",
                GRACE.toSeconds() + "s",
                "--failure-domain",
                "osd");
        MonClient client =
            new MonClient(
                List.of(new InetSocketAddress("127.0.0.1", port)),
                LinkSecurity.PLAINTEXT,
                Duration.ofSeconds(30))) {
      awaitMonReady(mon);
      Map<Integer, OsdProcess> byId = new HashMap<>();
      for (int i = 0; i < 3; i++) {
        osds.add(startOsd(dir.resolve("osd." + i), monitors));
      }
      for (OsdProcess osd : osds) {
        byId.put(awaitRegistered(osd), osd);
      }
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 3);

      Result ls = run("pool", "ls", "--format", "json", "--mon", monitors);
      assertTrue(
          ls.output().contains("\"failure_domain\" : \"osd\""),
          "the monitor's --failure-domain is rbd's: " + ls.output());

      PgMapping foo = osdMap(monitors, client, 3);
      assertEquals(3, new HashSet<>(foo.up()).size(), "three distinct OSDs: " + foo);
      ClusterProcesses.awaitActiveClean(monitors, MARK_DOWN);
      pgDump(monitors, client, 3, "active+clean");

      int killed = foo.primary();
      byId.get(killed).kill9();
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 2);
      PgMapping after = osdMap(monitors, client, 2);
      assertFalse(after.up().contains(killed), "osd." + killed + " left the up set: " + after);
      List<Integer> expected = new ArrayList<>(foo.up());
      expected.remove(Integer.valueOf(killed));
      assertEquals(expected, after.up(), "the others keep their order, no data moves");
      JsonNode status =
          awaitStatusCommand(
              monitors,
              MARK_DOWN,
              s ->
                  s.path("pgmap")
                      .path("pgs_by_state")
                      .toString()
                      .equals("[{\"state_name\":\"active+undersized+degraded\",\"count\":64}]"));
      assertEquals(64, status.path("pgmap").path("num_pgs").asInt(), status.toString());
      assertTrue(status.path("health").path("checks").has("PG_DEGRADED"), status.toString());
      assertFalse(status.path("health").path("checks").has("PG_AVAILABILITY"), status.toString());
      pgDump(monitors, client, 2, "active+undersized+degraded");

      int second = after.primary();
      byId.get(second).kill9();
      JsonNode undersized =
          awaitStatusCommand(
              monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 1);
      assertEquals(
          "undersized+degraded+peered", byState(undersized, 0).path("state_name").asText());
      assertEquals(64, byState(undersized, 0).path("count").asInt(), undersized.toString());
      assertTrue(
          undersized.path("health").path("checks").has("PG_AVAILABILITY"), undersized.toString());
    } finally {
      for (OsdProcess osd : osds) {
        osd.close();
      }
    }
  }

  private static JsonNode byState(JsonNode status, int index) {
    JsonNode states = status.path("pgmap").path("pgs_by_state");
    assertEquals(1, states.size(), status.toString());
    return states.get(index);
  }

  /**
   * {@code osd map rbd foo}, plain and JSON, checked against the placement computed here from the
   * monitors' map; the mapping, with {@code upSize} OSDs up.
   */
  private static PgMapping osdMap(String monitors, MonClient client, int upSize) throws Exception {
    Result plain = run("osd", "map", "rbd", "foo", "--mon", monitors);
    assertEquals(0, plain.exit(), plain.output());
    Result json = run("osd", "map", "rbd", "foo", "--mon", monitors, "--format", "json");
    assertEquals(0, json.exit(), json.output());
    ClusterMap map = client.fetchMap();
    PoolInfo rbd = map.pool("rbd").orElseThrow();
    PgMapping local = Placement.of(map).object(rbd, "foo");
    assertEquals(upSize, local.up().size(), local.toString());

    Matcher m = OSD_MAP.matcher(plain.output().strip());
    assertTrue(m.matches(), plain.output());
    assertEquals(map.epoch(), Long.parseLong(m.group(1)), "the same map: " + plain.output());
    assertEquals(local.pg(), new PgId(1, Integer.parseUnsignedInt(m.group(3), 16)));
    assertEquals(local.pg().seed(), Integer.parseUnsignedInt(m.group(2), 16) & (rbd.pgNum() - 1));
    assertEquals(list(local.up()), "[" + m.group(4) + "]", plain.output());
    assertEquals(local.primary(), Integer.parseInt(m.group(5)), plain.output());
    assertEquals(m.group(4), m.group(6), "acting = up in this stop");

    JsonNode j = JSON.readTree(json.output().substring(json.output().indexOf('{')));
    assertEquals(local.pg().toString(), j.path("pgid").asText(), j.toString());
    assertEquals("rbd", j.path("pool").asText());
    assertEquals(1, j.path("pool_id").asInt());
    assertEquals(list(local.up()), j.path("up").toString().replace(" ", ""));
    assertEquals(local.primary(), j.path("up_primary").asInt());
    assertEquals(j.path("up"), j.path("acting"));
    return local;
  }

  /** {@code pg dump --format json}: every PG of rbd, as computed here, each in {@code state}. */
  private static void pgDump(String monitors, MonClient client, int upSize, String state)
      throws Exception {
    Result dump = run("pg", "dump", "--mon", monitors, "--format", "json");
    assertEquals(0, dump.exit(), dump.output());
    Placement placement = Placement.of(client.fetchMap());
    JsonNode stats =
        JSON.readTree(dump.output().substring(dump.output().indexOf('{'))).path("pg_stats");
    assertEquals(64, stats.size(), dump.output());
    for (JsonNode pg : stats) {
      PgMapping local = placement.pg(PgId.parse(pg.path("pgid").asText()));
      assertEquals(list(local.up()), pg.path("up").toString(), pg.toString());
      assertEquals(upSize, local.up().size(), local.toString());
      assertEquals(local.primary(), pg.path("up_primary").asInt(), pg.toString());
      assertEquals(state, pg.path("state").asText(), pg.toString());
    }
    Result plain = run("pg", "dump", "--mon", monitors);
    assertEquals(0, plain.exit(), plain.output());
    assertTrue(plain.output().lines().anyMatch(l -> l.startsWith("PG_STAT ")), plain.output());
    assertEquals(65, plain.output().strip().lines().count(), "a header and 64 PGs");
  }

  private static String list(List<Integer> osds) {
    return osds.toString().replace(" ", "");
  }
}
