package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.awaitStatusCommand;
import static io.tidestore.it.ClusterProcesses.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.it.ClusterProcesses.Result;
import io.tidestore.osd.ops.ObjectOpsException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-copy replication and placement between real processes (one monitor, three OSDs, pool rbd
 * of size 3 and min_size 2), the cluster going from three OSDs up to two, then one:
 *
 * <ul>
 *   <li>Replication: every acknowledged write reads back through whichever OSD is primary after its
 *       primary was killed with SIGKILL (so the replicas had it), writes keep being acknowledged
 *       with two of three members, and none is with one. The monitor runs with the default
 *       heartbeat grace (6 s, where the other cluster tests take 2 s), and writers keep going
 *       across the kill of the primary: no client op waits 30 s or more for its answer (the issue:
 *       I/O to a PG whose primary died resumes within 30 s at the default settings).
 *   <li>Placement: at each stage {@code osd map} and {@code pg dump} print what the test computes
 *       itself from the map it fetches, three distinct OSDs per PG of pool rbd (failure domain osd,
 *       from the monitor's flag); a killed OSD leaves every up set once it is marked down (its PGs
 *       serve, degraded), and with two of three down the PGs are undersized and inactive. PG states
 *       are the monitors', from the primaries' reports.
 * </ul>
 */
class ClusterReplicationIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);

  /** The longest a client op may wait across the kill of its PG's primary. */
  private static final Duration RESUMES_WITHIN = Duration.ofSeconds(30);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern OSD_MAP =
      Pattern.compile(
          "^osdmap e(\\d+) pool 'rbd' \\(1\\) object 'foo' -> pg 1\\.([0-9a-f]+) \\(1\\.([0-9a-f]+)\\)"
              + " -> up \\(\\[([0-9,]*)\\], p(-?\\d+)\\) acting \\(\\[([0-9,]*)\\], p(-?\\d+)\\)$");

  @TempDir Path dir;

  @Test
  void acknowledgedWritesSurviveTheirPrimaryAndNothingIsAckedBelowMinSize() throws Exception {
    // No --osd-heartbeat-grace: the monitor's default.
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3, 1, List.of());
        MonClient mon = ClusterProcesses.monClient(cluster.monitors())) {
      int port = cluster.port();
      String monitors = cluster.monitors();
      Map<Integer, OsdProcess> byId = cluster.osds();

      Result ls = run("pool", "ls", "--format", "json", "--mon", monitors);
      assertTrue(
          ls.output().contains("\"failure_domain\" : \"osd\""),
          "the monitor's --failure-domain is rbd's: " + ls.output());
      PgMapping foo = osdMap(monitors, mon, 3);
      assertEquals(3, new HashSet<>(foo.up()).size(), "three distinct OSDs: " + foo);
      ClusterProcesses.awaitActiveClean(monitors, MARK_DOWN);
      pgDump(monitors, mon, 3, "active+clean");

      PgMapping after;
      try (ClusterClient client =
          ClusterClient.connect(
              List.of(new InetSocketAddress("127.0.0.1", port)),
              LinkSecurity.PLAINTEXT,
              null,
              Duration.ofSeconds(60))) {
        Random r = new Random(7);
        ClusterObjects written = new ClusterObjects("rbd");
        written.write(client, r, "a", 40);
        written.verify(client);
        client
            .setXattr("rbd", "a-0", "owner", Unpooled.wrappedBuffer(new byte[] {9}))
            .get(60, TimeUnit.SECONDS);
        assertArrayEquals(
            new byte[] {9},
            bytes(client.getXattr("rbd", "a-0", "owner").get(60, TimeUnit.SECONDS)));
        client.remove("rbd", "a-1").get(60, TimeUnit.SECONDS);
        written.removed("a-1");
        assertEquals(
            ObjectOpsException.Code.NOT_FOUND,
            ((ObjectOpsException) failure(client.stat("rbd", "a-1"))).code());

        // Kill the primary of a-0 under writes: its replicas must serve everything it
        // acknowledged, and the writes to its PGs wait for the new primaries, not 30 s.
        PoolInfo rbd = client.map().pool("rbd").orElseThrow();
        PgMapping a0 = Placement.of(client.map()).object(rbd, "a-0");
        int killed = a0.actingPrimary();
        try (VersionedWriters writers = new VersionedWriters(client, "rbd", 4, 32)) {
          assertTrue(writers.awaitAcks(100, MARK_DOWN), "writes before the kill");
          byId.get(killed).kill9();
          awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 2);
          written.verify(client);
          assertArrayEquals(
              new byte[] {9},
              bytes(client.getXattr("rbd", "a-0", "owner").get(60, TimeUnit.SECONDS)));
          long resumed = writers.acks();
          assertTrue(
              writers.awaitAcks(resumed + 100, MARK_DOWN),
              "writes go on with two members (" + writers.acks() + " acknowledged)");
          assertEquals(List.of(), writers.stopAndCheck());
          Duration stall = writers.longestWait();
          System.out.printf(
              "ClusterReplicationIT: the longest client op across the kill of osd.%d (primary of"
                  + " pg %s), default heartbeat grace: %d ms%n",
              killed, a0.pg(), stall.toMillis());
          assertTrue(stall.compareTo(RESUMES_WITHIN) < 0, "an op waited " + stall);
          assertTrue(
              stall.compareTo(Duration.ofSeconds(1)) > 0,
              "no op waited across the kill (" + stall + "): the measure missed it");
        }

        // The killed OSD left every up set (with three OSDs it was in each).
        after = osdMap(monitors, mon, 2);
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
        pgDump(monitors, mon, 2, "active+undersized+degraded");

        // Two of three members: writes are still acknowledged.
        written.write(client, r, "b", 20);
        written.verify(client);
      }

      // One member left, below min_size 2: the PGs are undersized and inactive, and a write is
      // never acknowledged.
      byId.get(after.primary()).kill9();
      JsonNode undersized =
          awaitStatusCommand(
              monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 1);
      assertEquals(
          "undersized+degraded+peered", byState(undersized, 0).path("state_name").asText());
      assertEquals(64, byState(undersized, 0).path("count").asInt(), undersized.toString());
      assertTrue(
          undersized.path("health").path("checks").has("PG_AVAILABILITY"), undersized.toString());
      try (ClusterClient client =
          ClusterClient.connect(
              List.of(new InetSocketAddress("127.0.0.1", port)),
              LinkSecurity.PLAINTEXT,
              null,
              Duration.ofSeconds(3))) {
        Throwable refused =
            failure(client.write("rbd", "c-0", 0, Unpooled.wrappedBuffer(new byte[4096])));
        assertTrue(
            refused instanceof ObjectOpsException x
                && x.code() == ObjectOpsException.Code.TRY_AGAIN,
            String.valueOf(refused));
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

  private static byte[] bytes(ByteBuf b) {
    try {
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  private static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get(60, TimeUnit.SECONDS);
      throw new AssertionError("succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer in 60 s");
    }
  }
}
