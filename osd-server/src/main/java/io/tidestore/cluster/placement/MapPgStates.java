package io.tidestore.cluster.placement;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The PG states that follow from the map alone, with Ceph's state names, until OSDs report real
 * ones (peering, stop 4). A PG whose up set is smaller than its pool's min_size cannot serve I/O
 * whatever its OSDs hold: it is {@code undersized} and counts as inactive. Every other PG is {@code
 * unknown}: no OSD has peered it, so nothing says whether it is active or clean.
 */
public final class MapPgStates {
  /** Ceph's name of a PG no OSD has reported on. */
  public static final String UNKNOWN = "unknown";

  /** Ceph's name of a PG with fewer copies than its pool's size; here: below min_size. */
  public static final String UNDERSIZED = "undersized";

  private final Map<String, Long> byState;
  private final long inactive;

  private MapPgStates(Map<String, Long> byState, long inactive) {
    this.byState = byState;
    this.inactive = inactive;
  }

  /** Counts every PG of every pool of the placement's map. */
  public static MapPgStates of(Placement placement) {
    ClusterMap map = placement.map();
    long undersized = 0;
    for (PgMapping pg : placement.all()) {
      if (state(pg, map.pools().get(pg.pg().pool())).equals(UNDERSIZED)) {
        undersized++;
      }
    }
    Map<String, Long> byState = new LinkedHashMap<>();
    long unknown = map.numPgs() - undersized;
    if (unknown > 0) {
      byState.put(UNKNOWN, unknown);
    }
    if (undersized > 0) {
      byState.put(UNDERSIZED, undersized);
    }
    return new MapPgStates(byState, undersized);
  }

  /** One PG's state by the map alone: {@link #UNDERSIZED} below min_size, else {@link #UNKNOWN}. */
  public static String state(PgMapping pg, PoolInfo pool) {
    return pg.up().size() < pool.minSize() ? UNDERSIZED : UNKNOWN;
  }

  /** State name -> PGs, in a fixed order (unknown, undersized), only states with PGs. */
  public Map<String, Long> byState() {
    return byState;
  }

  /** PGs that cannot serve I/O by the map alone (up set below min_size). */
  public long inactive() {
    return inactive;
  }
}
