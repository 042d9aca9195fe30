package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fourth OSD joins three that hold data (one monitor, pool rbd of size 3 and min_size 2, pg_num
 * 64): about 1/(N+1) of the PG replica slots move to it; the cluster itself (no client touching a
 * PG of rbd) copies to it every object of the PGs it joined, every PG's members end with the same
 * log, and everything reads back. The OSDs it took the place of remove their copies of those PGs
 * once the PGs are clean (stray removal). Writers keep writing another pool throughout, and no read
 * of theirs returns less than what was acknowledged.
 */
class ClusterAddOsdIT {
  private static final String POOL = "rbd";

  @TempDir Path dir;

  @Test
  void aNewOsdGetsItsShareOfTheData() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3);
        ClusterClient client = cluster.client(Duration.ofMinutes(2));
        PgProbe probe = new PgProbe()) {
      ClusterObjects objects = new ClusterObjects(POOL);
      objects.write(client, new Random(23), "o", 96);
      ClusterProcesses.createPool(cluster.monitors(), "aw", 3, 2, 16);
      try (VersionedWriters writers = new VersionedWriters(client, "aw", 4, 32)) {
        assertTrue(writers.awaitAcks(100, Duration.ofSeconds(60)), "writes before the join");
        ClusterMap before = client.map();

        int added = ClusterProcesses.addOsd(cluster, dir.resolve("osd.new"));
        assertTrue(client.awaitMap(m -> m.numUp() == 4, Duration.ofSeconds(30)), "4 OSDs up");
        ClusterMap after = client.map();
        double moved = movedSlots(before, after);
        List<PgMapping> joined = PgProbe.pgsOf(after, POOL, added);
        System.out.printf(
            "ClusterAddOsdIT: osd.%d joined %d of 64 PGs; %.4f of the replica slots moved"
                + " (expected 1/4 +- 20%%)%n",
            added, joined.size(), moved);
        assertTrue(moved >= 0.25 * 0.8 && moved <= 0.25 * 1.2, "moved " + moved);

        // It is a member of these PGs of both pools, and is sent no op of any other PG.
        int member = joined.size() + PgProbe.pgsOf(after, "aw", added).size();
        ClusterProcesses.awaitPgsSettled(cluster.osds().get(added), member);
        ClusterProcesses.awaitActiveClean(cluster.monitors(), Duration.ofSeconds(120));
        List<String> left = straysLeft(probe, before, after, Duration.ofSeconds(90));
        assertEquals(List.of(), left, "stray copies still held after the PGs were clean");
        Map<PgId, TreeSet<String>> expected = byPg(after, objects.names());
        int held = 0;
        for (PgMapping pg : joined) {
          List<String> names = probe.names(after.osds().get(added).address(), pg.pg());
          assertEquals(
              expected.getOrDefault(pg.pg(), new TreeSet<>()),
              new TreeSet<>(names),
              "pg " + pg.pg());
          held += names.size();
        }
        System.out.printf(
            "ClusterAddOsdIT: osd.%d holds %d of %d object copies (%.4f)%n",
            added, held, 3 * objects.names().size(), held / (3.0 * objects.names().size()));
        long joinedAt = writers.acks();
        assertTrue(
            writers.awaitAcks(joinedAt + 100, Duration.ofSeconds(60)), "writes after the join");
        assertEquals(List.of(), writers.stopAndCheck(), "writes and reads across the join");
      }
      probe.awaitAgreement(client, POOL, Duration.ofSeconds(60));
      probe.awaitAgreement(client, "aw", Duration.ofSeconds(60));
      objects.verify(client);
    }
  }

  /**
   * Waits up to {@code timeout} for every OSD that left a PG of the pool in {@code after} to hold
   * none of its objects; returns what is still held then (empty when all went).
   */
  private static List<String> straysLeft(
      PgProbe probe, ClusterMap before, ClusterMap after, Duration timeout) throws Exception {
    PoolInfo pool = after.pool(POOL).orElseThrow();
    Placement old = Placement.of(before);
    Placement now = Placement.of(after);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> left = new ArrayList<>();
      int strays = 0;
      for (int seed = 0; seed < pool.pgNum(); seed++) {
        PgId pg = new PgId(pool.id(), seed);
        for (int osd : old.pg(pg).acting()) {
          if (now.pg(pg).chosen().contains(osd)) {
            continue;
          }
          strays++;
          List<String> names;
          try {
            names = probe.names(after.osds().get(osd).address(), pg);
          } catch (Exception e) {
            names = List.of("(" + e.getMessage() + ")"); // being removed: asked again
          }
          if (!names.isEmpty()) {
            left.add("osd." + osd + " pg " + pg + ": " + names.size() + " objects");
          }
        }
      }
      assertTrue(strays > 0, "no OSD left a PG: nothing was tested");
      if (left.isEmpty() || System.nanoTime() > deadline) {
        System.out.printf(
            "ClusterAddOsdIT: %d stray PG copies, %d still held%n", strays, left.size());
        return left;
      }
      // The OSDs remove strays on their own 5 s tick: there is no event to wait on, so poll.
      LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
    }
  }

  /** The share of the pool's replica slots whose OSD is new to its PG in {@code after}. */
  private static double movedSlots(ClusterMap before, ClusterMap after) {
    PoolInfo pool = after.pool(POOL).orElseThrow();
    Placement old = Placement.of(before);
    Placement now = Placement.of(after);
    int moved = 0;
    for (int seed = 0; seed < pool.pgNum(); seed++) {
      PgId pg = new PgId(pool.id(), seed);
      List<Integer> was = old.pg(pg).acting();
      for (int osd : now.pg(pg).acting()) {
        if (!was.contains(osd)) {
          moved++;
        }
      }
    }
    return moved / (double) (pool.pgNum() * pool.size());
  }

  private static Map<PgId, TreeSet<String>> byPg(ClusterMap map, List<String> names) {
    PoolInfo pool = map.pool(POOL).orElseThrow();
    Placement placement = Placement.of(map);
    Map<PgId, TreeSet<String>> byPg = new HashMap<>();
    for (String name : names) {
      byPg.computeIfAbsent(placement.object(pool, name).pg(), p -> new TreeSet<>()).add(name);
    }
    return byPg;
  }
}
