package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitActiveClean;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.client;
import static io.tidestore.it.ClusterProcesses.createPool;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.pg.PgLog;
import io.tidestore.cluster.placement.ObjectHash;
import io.tidestore.osd.ops.ObjectOpsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery between real processes (one monitor, three OSDs, a pool of size 3 and min_size 1): an
 * OSD is killed, objects are written, overwritten and removed without it, it comes back, and once
 * every PG is active+clean again (its primary recovered it on its own, no client op asked for it,
 * and the monitors show it from their reports) the other two are killed: the one that was away
 * serves exactly the acknowledged state, so recovery brought every object it missed (log-based, and
 * a backfill for a PG that took more writes than its log keeps). A PG that took more writes than a
 * clean PG's log keeps, but fewer than a PG keeps while a member is away, is recovered from its
 * log: only the one PG that took more needs a backfill.
 */
class ClusterRecoveryIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void anOsdThatWasAwayIsRecoveredAndThenServesEverything() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      String monitors = cluster.monitors();
      Map<Integer, OsdProcess> byId = cluster.osds();
      createPool(monitors, "rec", 3, 1, 8);
      Map<String, byte[]> model = new LinkedHashMap<>();
      Random r = new Random(11);
      int away = byId.keySet().iterator().next();
      try (ClusterClient client = client(cluster.port())) {
        writeAll(client, r, model, "a", 24);
        byId.get(away).kill9();
        awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 2);
        writeAll(client, r, model, "b", 24); // new objects
        writeAll(client, r, model, "a", 12); // overwrites
        for (int i = 12; i < 15; i++) {
          client.remove("rec", "a-" + i).get(60, TimeUnit.SECONDS);
          model.put("a-" + i, null);
        }
        // One object written more times than a clean PG's log keeps: its PG keeps more while a
        // member is away, so it is recovered from the log.
        model.put(
            WARM + "-0", ClusterObjects.rewrite(client, "rec", r, WARM + "-0", PgLog.KEEP + 100));
        // One written more times than even that: its PG needs a backfill. Every OSD holds a copy of
        // each of the 64 PGs of pool rbd and the 8 of this pool.
        model.put(
            "hot-0",
            ClusterObjects.rewrite(client, "rec", r, "hot-0", PgLog.keepNotClean(64 + 8) + 100));
      }
      OsdProcess back = startOsd(cluster.data().get(away), monitors);
      byId.put(away, back);
      assertEquals(away, awaitRegistered(back));
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 3);
      // The primaries recover on their own, and the monitors hear of it from their reports.
      awaitActiveClean(monitors, Duration.ofSeconds(90));
      // Where the returning OSD is a replica, its primary recovered it while the PG served.
      assertTrue(
          byId.entrySet().stream()
              .anyMatch(
                  e -> e.getKey() != away && e.getValue().output().contains("async recovery")),
          "no primary recovered osd." + away + " while serving");
      assertEquals(
          Set.of(seedOf("hot-0")),
          backfilledSeeds(byId.values()),
          "only the PG written more than its log keeps while osd." + away + " was away");
      for (var e : byId.entrySet()) {
        if (e.getKey() != away) {
          e.getValue().kill9();
        }
      }
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 1);
      try (ClusterClient client = client(cluster.port())) {
        verify(client, model);
      }
    }
  }

  /** An object name whose PG is not hot-0's (the two would otherwise share one backfill). */
  private static final String WARM = warmName();

  private static String warmName() {
    for (int i = 0; ; i++) {
      if (seedOf("warm" + i + "-0") != seedOf("hot-0")) {
        return "warm" + i;
      }
    }
  }

  /** The PG seed of {@code name} in this test's pool of 8 PGs. */
  private static int seedOf(String name) {
    return ObjectHash.fold(ObjectHash.hash(name), 8);
  }

  private static final Pattern BACKFILL =
      Pattern.compile("pg \\d+\\.([0-9a-f]+): osd\\.\\d+ (?:\\(primary\\) )?needs a backfill");

  /**
   * The seeds of the PGs whose primaries logged that a member (or themselves) needed a backfill.
   */
  private static Set<Integer> backfilledSeeds(Iterable<OsdProcess> osds) {
    Set<Integer> seeds = new HashSet<>();
    for (OsdProcess osd : osds) {
      Matcher m = BACKFILL.matcher(osd.output());
      while (m.find()) {
        seeds.add(Integer.parseInt(m.group(1), 16));
      }
    }
    return seeds;
  }

  /** {@link ClusterObjects#write}: {@code count} new objects of 4 to 32 KiB into pool rec. */
  private static void writeAll(
      ClusterClient client, Random r, Map<String, byte[]> model, String prefix, int count)
      throws Exception {
    ClusterObjects.write(client, "rec", r, prefix, count, 8, model);
  }

  private static void verify(ClusterClient client, Map<String, byte[]> model) throws Exception {
    for (var e : model.entrySet()) {
      if (e.getValue() == null) {
        try {
          client.stat("rec", e.getKey()).get(60, TimeUnit.SECONDS);
          throw new AssertionError(e.getKey() + " was removed but is there");
        } catch (ExecutionException x) {
          assertTrue(
              x.getCause() instanceof ObjectOpsException o
                  && o.code() == ObjectOpsException.Code.NOT_FOUND,
              e.getKey() + ": " + x.getCause());
        }
        continue;
      }
      ByteBuf data = client.read("rec", e.getKey(), 0, 1 << 20).get(60, TimeUnit.SECONDS);
      try {
        byte[] got = ByteBufUtil.getBytes(data);
        // Overwrites at offset 0 keep the old tail past the new data's end: compare the prefix.
        assertArrayEquals(
            e.getValue(), java.util.Arrays.copyOf(got, e.getValue().length), e.getKey());
      } finally {
        data.release();
      }
    }
  }
}
