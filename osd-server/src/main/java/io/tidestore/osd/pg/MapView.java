package io.tidestore.osd.pg;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.ObjectHash;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import java.util.ArrayList;
import java.util.List;

/**
 * One map, its placement, the PGs this OSD is the acting primary of and how many PGs it holds a
 * copy of, computed once per epoch and shared by every shard. Immutable.
 */
record MapView(ClusterMap map, Placement placement, List<PgId> primaryOf, int pgCopies) {
  /** The view of {@code map} from OSD {@code self}. */
  static MapView of(ClusterMap map, int self) {
    Placement placement = Placement.of(map);
    List<PgId> mine = new ArrayList<>();
    int copies = 0;
    for (PgMapping pg : placement.all()) {
      if (pg.actingPrimary() == self) {
        mine.add(pg.pg());
      }
      if (pg.acting().contains(self)) {
        copies++;
      }
    }
    return new MapView(map, placement, List.copyOf(mine), copies);
  }

  long epoch() {
    return map.epoch();
  }

  /**
   * The PG of object {@code name} of pool {@code pool}, or null when the pool is not in the map.
   */
  PgId pgOf(int pool, String name) {
    PoolInfo info = map.pools().get(pool);
    return info == null ? null : ObjectHash.pg(info, name);
  }

  /** Where {@code pg} lives, or null when its pool is gone. */
  PgMapping mapping(PgId pg) {
    PoolInfo info = map.pools().get(pg.pool());
    return info == null || Integer.compareUnsigned(pg.seed(), info.pgNum()) >= 0
        ? null
        : placement.pg(pg);
  }

  /** Whether OSD {@code osd} is up in this map. */
  boolean up(int osd) {
    var info = map.osds().get(osd);
    return info != null && info.up();
  }

  /** The object protocol address of OSD {@code osd}, or null. */
  String address(int osd) {
    var info = map.osds().get(osd);
    return info == null ? null : info.address();
  }
}
