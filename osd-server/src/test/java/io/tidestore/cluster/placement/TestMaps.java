package io.tidestore.cluster.placement;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.map.PoolInfo;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;

/** Cluster maps built directly, for placement and PG state tests. */
public final class TestMaps {
  private TestMaps() {}

  /** An OSD that is up and in. */
  public static OsdInfo osd(int id, String host, double weight) {
    return new OsdInfo(
        id,
        new UUID(1, id),
        host,
        weight,
        "127.0.0.1:" + (7000 + id),
        "127.0.0.1:9000",
        true,
        true,
        1,
        0);
  }

  public static OsdInfo down(OsdInfo o) {
    return with(o, false, o.in());
  }

  public static OsdInfo out(OsdInfo o) {
    return with(o, o.up(), false);
  }

  /** The same OSD, up again in a new incarnation that came up in epoch {@code upFrom}. */
  public static OsdInfo restarted(OsdInfo o, long upFrom) {
    return with(o, true, o.in(), upFrom);
  }

  private static OsdInfo with(OsdInfo o, boolean up, boolean in) {
    return with(o, up, in, o.upFrom());
  }

  private static OsdInfo with(OsdInfo o, boolean up, boolean in, long upFrom) {
    return new OsdInfo(
        o.id(), o.uuid(), o.host(), o.weight(), o.address(), o.adminAddress(), up, in, upFrom, 0);
  }

  public static PoolInfo pool(int id, int size, int minSize, int pgNum, FailureDomain domain) {
    return new PoolInfo(id, "pool" + id, size, minSize, pgNum, domain, 1);
  }

  public static ClusterMap map(List<OsdInfo> osds, List<PoolInfo> pools) {
    TreeMap<Integer, OsdInfo> byId = new TreeMap<>();
    osds.forEach(o -> byId.put(o.id(), o));
    TreeMap<Integer, PoolInfo> poolsById = new TreeMap<>();
    pools.forEach(p -> poolsById.put(p.id(), p));
    return new ClusterMap(
        new UUID(7, 7), 10, 0, FailureDomain.OSD, byId.size(), 2, byId, poolsById);
  }
}
