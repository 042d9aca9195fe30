package io.tidestore.cluster.pgstats;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.placement.PgMapping;

/**
 * What identifies a PG's interval: its acting primary and each acting member in its incarnation
 * ({@code up_from}). The OSD starts a new interval (and peers) whenever this changes; a monitor
 * takes a primary's reported state only for the interval its own map shows, so a state reported
 * before a member died or came back is never shown as the current one.
 */
public final class PgInterval {
  private PgInterval() {}

  /** The interval of {@code mapping} in {@code map}; "" for a PG with no acting set. */
  public static String key(ClusterMap map, PgMapping mapping) {
    if (mapping == null || mapping.acting().isEmpty()) {
      return "";
    }
    StringBuilder key = new StringBuilder().append(mapping.actingPrimary()).append(':');
    for (int osd : mapping.acting()) {
      OsdInfo info = map.osds().get(osd);
      key.append(osd).append('@').append(info == null ? 0 : info.upFrom()).append(',');
    }
    return key.toString();
  }
}
