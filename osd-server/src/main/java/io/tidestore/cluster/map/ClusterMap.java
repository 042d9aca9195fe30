package io.tidestore.cluster.map;

import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The whole cluster map at one epoch: an immutable value, replaced (never changed) by {@link
 * MapChanges}. Epoch 0 is the empty map of monitors that have not initialized the cluster yet;
 * every change after that makes a new epoch.
 *
 * @param fsid the cluster's identity, fixed when it is created; an OSD that belonged to another
 *     cluster is refused
 * @param epoch the map version; strictly increasing, one per change
 * @param createdMillis when the cluster was created (wall clock of the proposing monitor)
 * @param defaultFailureDomain the failure domain of pools created without one
 * @param nextOsdId the id the next new OSD gets
 * @param nextPoolId the id the next pool gets
 * @param osds by id
 * @param pools by id
 */
public record ClusterMap(
    UUID fsid,
    long epoch,
    long createdMillis,
    FailureDomain defaultFailureDomain,
    int nextOsdId,
    int nextPoolId,
    SortedMap<Integer, OsdInfo> osds,
    SortedMap<Integer, PoolInfo> pools) {

  /** The map before the monitors created the cluster. */
  public static final ClusterMap EMPTY =
      new ClusterMap(
          new UUID(0, 0),
          0,
          0,
          FailureDomain.HOST,
          0,
          1,
          Collections.emptySortedMap(),
          Collections.emptySortedMap());

  public ClusterMap {
    osds = Collections.unmodifiableSortedMap(new TreeMap<>(osds));
    pools = Collections.unmodifiableSortedMap(new TreeMap<>(pools));
  }

  /** Whether the monitors have created the cluster (its fsid and first pool). */
  public boolean initialized() {
    return epoch > 0;
  }

  public Optional<OsdInfo> osd(int id) {
    return Optional.ofNullable(osds.get(id));
  }

  public Optional<PoolInfo> pool(String name) {
    return pools.values().stream().filter(p -> p.name().equals(name)).findFirst();
  }

  public Optional<OsdInfo> osdByUuid(UUID uuid) {
    return osds.values().stream().filter(o -> o.uuid().equals(uuid)).findFirst();
  }

  public int numUp() {
    return (int) osds.values().stream().filter(OsdInfo::up).count();
  }

  public int numIn() {
    return (int) osds.values().stream().filter(OsdInfo::in).count();
  }

  /** The PGs of every pool together. */
  public long numPgs() {
    return pools.values().stream().mapToLong(PoolInfo::pgNum).sum();
  }

  /** A copy at the next epoch with {@code osd} put in (added or replaced). */
  ClusterMap withOsd(OsdInfo osd, int nextOsdId) {
    TreeMap<Integer, OsdInfo> changed = new TreeMap<>(osds);
    changed.put(osd.id(), osd);
    return next(nextOsdId, nextPoolId, changed, pools);
  }

  /** A copy at the next epoch with these OSDs replaced. */
  ClusterMap withOsds(SortedMap<Integer, OsdInfo> replaced) {
    TreeMap<Integer, OsdInfo> changed = new TreeMap<>(osds);
    changed.putAll(replaced);
    return next(nextOsdId, nextPoolId, changed, pools);
  }

  /** A copy at the next epoch with these pools; {@code nextPoolId} as given. */
  ClusterMap withPools(SortedMap<Integer, PoolInfo> newPools, int nextPoolId) {
    return next(nextOsdId, nextPoolId, osds, newPools);
  }

  /** The map one epoch later of the same cluster, with these OSDs, pools and id counters. */
  private ClusterMap next(
      int nextOsdId,
      int nextPoolId,
      SortedMap<Integer, OsdInfo> newOsds,
      SortedMap<Integer, PoolInfo> newPools) {
    return new ClusterMap(
        fsid,
        epoch + 1,
        createdMillis,
        defaultFailureDomain,
        nextOsdId,
        nextPoolId,
        newOsds,
        newPools);
  }
}
