package io.tidestore.cluster.pgstats;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every PG of the map with the state a monitor resolved for it, and the cluster's recovery rates:
 * what {@code tidestore status} and {@code pg dump} print.
 *
 * @param epoch the map epoch the states were resolved against
 * @param recoveringObjectsPerSec objects recovered per second, over the OSDs' last few reports
 * @param recoveringBytesPerSec their bytes per second
 * @param pgs every PG, in the placement's order
 */
public record PgSummary(
    long epoch, double recoveringObjectsPerSec, double recoveringBytesPerSec, List<Pg> pgs) {

  /**
   * One PG.
   *
   * @param pg its id
   * @param state Ceph's words joined by '+'
   * @param primary its acting primary, or -1
   * @param head the newest entry of its primary's log as last reported, or zero
   */
  public record Pg(PgId pg, String state, int primary, Eversion head) {
    /** Whether it serves I/O: Ceph's "active" (anything else counts as inactive). */
    public boolean active() {
      return has(state, "active");
    }

    /** Whether it has fewer good copies than its pool's size. */
    public boolean degraded() {
      return has(state, "degraded") || has(state, "undersized");
    }
  }

  public PgSummary {
    pgs = List.copyOf(pgs);
  }

  /** Whether {@code state} has the word {@code word} (states are words joined by '+'). */
  public static boolean has(String state, String word) {
    for (String w : state.split("\\+", -1)) {
      if (w.equals(word)) {
        return true;
      }
    }
    return false;
  }

  /** State -> PGs, the most common first (as {@code ceph -s} lists them), ties by name. */
  public Map<String, Long> byState() {
    Map<String, Long> counts = new TreeMap<>();
    for (Pg pg : pgs) {
      counts.merge(pg.state(), 1L, Long::sum);
    }
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
    sorted.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
    Map<String, Long> ordered = new LinkedHashMap<>();
    sorted.forEach(e -> ordered.put(e.getKey(), e.getValue()));
    return ordered;
  }

  /** PGs that serve no I/O now. */
  public long inactive() {
    return pgs.stream().filter(p -> !p.active()).count();
  }

  /** PGs with fewer good copies than their pool's size. */
  public long degraded() {
    return pgs.stream().filter(Pg::degraded).count();
  }

  /** PGs with the state word {@code word}. */
  public long withWord(String word) {
    return pgs.stream().filter(p -> has(p.state(), word)).count();
  }

  /** Whether every PG is active+clean (and there is at least one). */
  public boolean allClean() {
    return !pgs.isEmpty() && pgs.stream().allMatch(p -> p.state().equals(PgStates.ACTIVE_CLEAN));
  }
}
