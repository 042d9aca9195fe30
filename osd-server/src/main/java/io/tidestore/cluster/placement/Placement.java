package io.tidestore.cluster.placement;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.map.PoolInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * PG -> ordered OSDs for one map: straw2 over the {@code in} OSDs of weight > 0, one replica per
 * failure domain. Every candidate OSD draws {@code ln(u) / weight} for the PG ({@link Straw2}); a
 * domain's draw is the largest draw of its OSDs, which is distributed exactly as one straw2 draw
 * with the domain's total weight (the maximum of independent {@code -Exp(w_i)} is {@code -Exp(sum
 * w_i)}), and the OSD that made it is the one chosen inside the domain. Replicas are the domains in
 * decreasing order of their draws, each represented by its best OSD, so that a map with fewer
 * domains than size gives fewer OSDs and adding an OSD moves only the slots it now wins.
 *
 * <p>CRUSH instead draws again with a new attempt number when a replica lands on a domain already
 * used; that makes the later replicas depend on the collisions before them, and moved up to 1.4x
 * the ideal share when an OSD was added to a host (measured, docs/cluster.md). Here every OSD draws
 * once per PG (no attempt number) and used domains are skipped, which needs no retry bound.
 * Candidates are kept sorted (hosts by label, OSDs by id), so the answer never depends on a hash
 * map's iteration order. Immutable; build one per map epoch.
 */
public final class Placement {
  private final ClusterMap map;
  private final Domains byOsd;
  private final Domains byHost;

  private Placement(ClusterMap map) {
    this.map = map;
    TreeMap<String, List<OsdInfo>> hosts = new TreeMap<>();
    List<List<OsdInfo>> osds = new ArrayList<>();
    for (OsdInfo osd : map.osds().values()) { // ascending id
      if (osd.in() && osd.weight() > 0) {
        osds.add(List.of(osd));
        hosts.computeIfAbsent(osd.host(), h -> new ArrayList<>()).add(osd);
      }
    }
    this.byOsd = new Domains(osds);
    this.byHost = new Domains(new ArrayList<>(hosts.values()));
  }

  /** The placement of this map. */
  public static Placement of(ClusterMap map) {
    return new Placement(map);
  }

  public ClusterMap map() {
    return map;
  }

  /** Where the object {@code objectName} of {@code pool} lives. */
  public PgMapping object(PoolInfo pool, String objectName) {
    return pg(pool, ObjectHash.pg(pool, objectName).seed());
  }

  /**
   * Where a PG lives.
   *
   * @throws NoSuchElementException if its pool is not in the map
   * @throws IllegalArgumentException if its seed is not below the pool's pg_num
   */
  public PgMapping pg(PgId pg) {
    PoolInfo pool = map.pools().get(pg.pool());
    if (pool == null) {
      throw new NoSuchElementException("pool " + pg.pool() + " does not exist");
    }
    if (Integer.compareUnsigned(pg.seed(), pool.pgNum()) >= 0) {
      throw new IllegalArgumentException(
          "pg " + pg + " does not exist: pool " + pool.id() + " has pg_num " + pool.pgNum());
    }
    return pg(pool, pg.seed());
  }

  /** Every PG of every pool, by pool id then seed. */
  public List<PgMapping> all() {
    List<PgMapping> all = new ArrayList<>();
    for (PoolInfo pool : map.pools().values()) {
      for (int seed = 0; seed < pool.pgNum(); seed++) {
        all.add(pg(pool, seed));
      }
    }
    return all;
  }

  private PgMapping pg(PoolInfo pool, int seed) {
    List<Integer> chosen = choose(pool, seed);
    List<Integer> up = new ArrayList<>(chosen.size());
    for (int id : chosen) {
      if (map.osds().get(id).up()) {
        up.add(id);
      }
    }
    return new PgMapping(new PgId(pool.id(), seed), chosen, up, up.isEmpty() ? -1 : up.get(0));
  }

  private List<Integer> choose(PoolInfo pool, int seed) {
    Domains domains = pool.failureDomain() == FailureDomain.HOST ? byHost : byOsd;
    int n = domains.osds.length;
    double[] draws = new double[n];
    int[] best = new int[n];
    for (int d = 0; d < n; d++) {
      draws[d] = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < domains.osds[d].length; i++) {
        double draw = Straw2.draw(pool.id(), seed, domains.osds[d][i], domains.weights[d][i]);
        if (draw > draws[d]) { // a tie goes to the lower id
          draws[d] = draw;
          best[d] = domains.osds[d][i];
        }
      }
    }
    List<Integer> chosen = new ArrayList<>(pool.size());
    boolean[] used = new boolean[n];
    while (chosen.size() < Math.min(pool.size(), n)) {
      int next = -1;
      for (int d = 0; d < n; d++) {
        if (!used[d] && (next < 0 || draws[d] > draws[next])) {
          next = d;
        }
      }
      used[next] = true;
      chosen.add(best[next]);
    }
    return chosen;
  }

  /** The failure domains of one kind in a fixed order, each its OSDs (ascending id) and weights. */
  private static final class Domains {
    final int[][] osds;
    final double[][] weights;

    Domains(List<List<OsdInfo>> members) {
      osds = new int[members.size()][];
      weights = new double[members.size()][];
      for (int d = 0; d < osds.length; d++) {
        List<OsdInfo> domain = members.get(d);
        osds[d] = domain.stream().mapToInt(OsdInfo::id).toArray();
        weights[d] = domain.stream().mapToDouble(OsdInfo::weight).toArray();
      }
    }
  }
}
