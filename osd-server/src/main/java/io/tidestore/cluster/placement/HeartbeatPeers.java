package io.tidestore.cluster.placement;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which OSDs one OSD heartbeats (Ceph's {@code OSD::maybe_update_heartbeat_peers}): every up OSD it
 * shares a PG's acting set with, who would notice first that it cannot serve them, plus the next
 * and the previous up OSD by id (wrapping around), so that an OSD with few or no PGs still has
 * peers and the peer graph of the whole cluster is connected. An OSD that its map does not show up
 * has no peers: it is booting again, and its reports would not count. A pure function of the map.
 */
public final class HeartbeatPeers {
  private HeartbeatPeers() {}

  /**
   * The heartbeat peers of {@code self}, ascending.
   *
   * @param pgs the placement of every PG of {@code map} ({@link Placement#all}, computed once per
   *     map by its caller)
   */
  public static SortedSet<Integer> of(ClusterMap map, List<PgMapping> pgs, int self) {
    OsdInfo me = map.osds().get(self);
    if (me == null || !me.up()) {
      return Collections.emptySortedSet();
    }
    SortedSet<Integer> peers = new TreeSet<>();
    for (PgMapping pg : pgs) {
      if (pg.acting().contains(self)) {
        peers.addAll(pg.acting());
      }
    }
    List<Integer> up = new ArrayList<>();
    for (OsdInfo osd : map.osds().values()) { // ascending id
      if (osd.up()) {
        up.add(osd.id());
      }
    }
    int at = up.indexOf(self);
    peers.add(up.get((at + 1) % up.size()));
    peers.add(up.get((at - 1 + up.size()) % up.size()));
    peers.remove(self);
    return Collections.unmodifiableSortedSet(peers);
  }
}
