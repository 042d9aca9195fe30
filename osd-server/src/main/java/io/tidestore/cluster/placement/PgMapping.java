package io.tidestore.cluster.placement;

import java.util.List;

/**
 * Where one PG lives at one map epoch.
 *
 * @param pg the PG
 * @param chosen the OSDs straw2 picked, in order (in, weight > 0; some may be down)
 * @param up the chosen OSDs that are up, order kept
 * @param primary the first of {@code up}, or -1 when none is up
 */
public record PgMapping(PgId pg, List<Integer> chosen, List<Integer> up, int primary) {

  public PgMapping {
    chosen = List.copyOf(chosen);
    up = List.copyOf(up);
  }

  /**
   * The acting set. In this stop it is the up set: there is no peering yet to keep a previous set
   * acting (Ceph's pg_temp) while a new member is recovered.
   */
  public List<Integer> acting() {
    return up;
  }

  /** The acting primary; the up primary in this stop (see {@link #acting()}). */
  public int actingPrimary() {
    return primary;
  }
}
