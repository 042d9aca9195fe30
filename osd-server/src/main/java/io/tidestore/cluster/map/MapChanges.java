package io.tidestore.cluster.map;

import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The one function that changes the map: {@code apply(map, command)} returns the next map (one
 * epoch later) or the same map with the reason the command was refused. It is pure, so every
 * monitor applying the same log reaches the same map.
 */
public final class MapChanges {
  /** The pool every new cluster starts with, as Ceph's {@code rbd}. */
  public static final String DEFAULT_POOL = "rbd";

  private static final Pattern POOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern HOST_LABEL = Pattern.compile("[A-Za-z0-9_.:-]{1,253}");
  private static final int MAX_OSD_ID = 1_000_000;

  private MapChanges() {}

  /**
   * What applying a command did.
   *
   * @param map the map after it (the same object when refused or a no-op)
   * @param error why it was refused, or null
   * @param osdId for a boot, the OSD's id; else -1
   */
  public record Outcome(ClusterMap map, String error, int osdId) {
    static Outcome refused(ClusterMap map, String error) {
      return new Outcome(map, error, -1);
    }

    static Outcome changed(ClusterMap map) {
      return new Outcome(map, null, -1);
    }
  }

  public static Outcome apply(ClusterMap map, MapCommand command) {
    if (!map.initialized() && !(command instanceof MapCommand.Init)) {
      return Outcome.refused(map, "the cluster is not created yet (no monitor leader so far)");
    }
    return switch (command) {
      case MapCommand.Init init -> init(map, init);
      case MapCommand.Boot boot -> boot(map, boot);
      case MapCommand.MarkDown down -> markDown(map, down);
      case MapCommand.MarkOut out -> markOut(map, out);
      case MapCommand.PoolCreate create -> poolCreate(map, create);
      case MapCommand.PoolRemove remove -> poolRemove(map, remove);
    };
  }

  private static Outcome init(ClusterMap map, MapCommand.Init init) {
    if (map.initialized()) {
      return Outcome.changed(map);
    }
    PoolInfo rbd = new PoolInfo(1, DEFAULT_POOL, 3, 2, 64, init.defaultFailureDomain(), 1);
    TreeMap<Integer, PoolInfo> pools = new TreeMap<>();
    pools.put(rbd.id(), rbd);
    return Outcome.changed(
        new ClusterMap(
            init.fsid(),
            1,
            init.nowMillis(),
            init.defaultFailureDomain(),
            0,
            2,
            new TreeMap<>(),
            pools));
  }

  private static Outcome boot(ClusterMap map, MapCommand.Boot boot) {
    if (boot.requestedId() < -1 || boot.requestedId() >= MAX_OSD_ID) {
      return Outcome.refused(map, "osd id " + boot.requestedId() + " is out of range");
    }
    if (!HOST_LABEL.matcher(boot.host()).matches()) {
      return Outcome.refused(map, "host label '" + boot.host() + "' is not a host name");
    }
    if (!(boot.weight() >= 0) || boot.weight() > 1e6) {
      return Outcome.refused(map, "weight " + boot.weight() + " is out of range (0 to 1e6)");
    }
    OsdInfo known = map.osdByUuid(boot.uuid()).orElse(null);
    int id;
    if (boot.requestedId() >= 0) {
      id = boot.requestedId();
      if (known != null && known.id() != id) {
        return Outcome.refused(
            map, "this OSD (uuid " + boot.uuid() + ") is osd." + known.id() + ", not osd." + id);
      }
      OsdInfo holder = map.osds().get(id);
      if (holder != null && !holder.uuid().equals(boot.uuid()) && holder.up()) {
        return Outcome.refused(
            map,
            "osd."
                + id
                + " is up with another data directory (uuid "
                + holder.uuid()
                + "); stop it, or wait until it is marked down, before reusing its id");
      }
    } else {
      id = known != null ? known.id() : map.nextOsdId();
    }
    OsdInfo osd =
        new OsdInfo(
            id,
            boot.uuid(),
            boot.host(),
            boot.weight(),
            boot.address(),
            boot.adminAddress(),
            true,
            true,
            map.epoch() + 1,
            boot.nowMillis());
    ClusterMap next = map.withOsd(osd, Math.max(map.nextOsdId(), id + 1));
    return new Outcome(next, null, id);
  }

  private static Outcome markDown(ClusterMap map, MapCommand.MarkDown down) {
    TreeMap<Integer, OsdInfo> changed = new TreeMap<>();
    for (var entry : down.upFromById().entrySet()) {
      OsdInfo osd = map.osds().get(entry.getKey());
      if (osd != null && osd.up() && osd.upFrom() == entry.getValue()) {
        changed.put(osd.id(), osd.markedDown(down.nowMillis()));
      }
    }
    return changed.isEmpty() ? Outcome.changed(map) : Outcome.changed(map.withOsds(changed));
  }

  private static Outcome markOut(ClusterMap map, MapCommand.MarkOut out) {
    TreeMap<Integer, OsdInfo> changed = new TreeMap<>();
    for (var entry : out.upFromById().entrySet()) {
      OsdInfo osd = map.osds().get(entry.getKey());
      if (osd != null && !osd.up() && osd.in() && osd.upFrom() == entry.getValue()) {
        changed.put(osd.id(), osd.markedOut());
      }
    }
    return changed.isEmpty() ? Outcome.changed(map) : Outcome.changed(map.withOsds(changed));
  }

  /** Why a pool with these settings cannot be created in {@code map}, or null. */
  public static String poolRefusal(ClusterMap map, String name, int size, int minSize, int pgNum) {
    if (!POOL_NAME.matcher(name).matches()) {
      return "pool name '" + name + "' must be 1-64 of A-Z a-z 0-9 _ . -";
    }
    if (map.pool(name).isPresent()) {
      return "pool '" + name + "' already exists";
    }
    if (size < 1 || size > PoolInfo.MAX_SIZE) {
      return "--size " + size + " is out of range (1-" + PoolInfo.MAX_SIZE + ")";
    }
    if (minSize < 1 || minSize > size) {
      return "--min-size " + minSize + " is out of range (1 to --size " + size + ")";
    }
    if (pgNum < 1 || pgNum > PoolInfo.MAX_PG_NUM) {
      return "--pg-num " + pgNum + " is out of range (1-" + PoolInfo.MAX_PG_NUM + ")";
    }
    return null;
  }

  private static Outcome poolCreate(ClusterMap map, MapCommand.PoolCreate create) {
    String refusal =
        poolRefusal(map, create.name(), create.size(), create.minSize(), create.pgNum());
    if (refusal != null) {
      return Outcome.refused(map, refusal);
    }
    FailureDomain domain =
        create.failureDomain() == null ? map.defaultFailureDomain() : create.failureDomain();
    PoolInfo pool =
        new PoolInfo(
            map.nextPoolId(),
            create.name(),
            create.size(),
            create.minSize(),
            create.pgNum(),
            domain,
            map.epoch() + 1);
    SortedMap<Integer, PoolInfo> pools = new TreeMap<>(map.pools());
    pools.put(pool.id(), pool);
    return Outcome.changed(map.withPools(pools, map.nextPoolId() + 1));
  }

  private static Outcome poolRemove(ClusterMap map, MapCommand.PoolRemove remove) {
    PoolInfo pool = map.pool(remove.name()).orElse(null);
    if (pool == null) {
      return Outcome.refused(map, "pool '" + remove.name() + "' does not exist");
    }
    SortedMap<Integer, PoolInfo> pools = new TreeMap<>(map.pools());
    pools.remove(pool.id());
    return Outcome.changed(map.withPools(pools, map.nextPoolId()));
  }
}
