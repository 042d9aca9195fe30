package io.tidestore.osd.pg;

import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.PgLog;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreException;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * The PGs of one shard (a cluster OSD keeps each PG's objects and log in one shard, {@link
 * PgMeta#shardOf}): loaded from the store on first use, moved to every new map, each peering,
 * serving as primary or applying as replica. Everything here runs on the shard's owner thread.
 */
final class ShardPgs {
  private static final Logger LOG = Logger.getLogger(ShardPgs.class.getName());

  final int shard;
  private final int shardCount;
  final ShardStore store;
  final Executor executor;
  final PgServices services;
  final Primary primary;
  final Replica replica;
  final Peering peering;
  final Recovery recovery;
  final RecoveryMember member;
  final ObjectCopies copies;
  private final Map<PgId, Pg> pgs = new HashMap<>();
  private long mapEpoch;

  ShardPgs(int shard, int shardCount, ShardStore store, Executor executor, PgServices services) {
    this.shard = shard;
    this.shardCount = shardCount;
    this.store = store;
    this.executor = executor;
    this.services = services;
    this.primary = new Primary(this);
    this.replica = new Replica(this);
    this.peering = new Peering(this);
    this.copies = new ObjectCopies(this);
    this.recovery = new Recovery(this);
    this.member = new RecoveryMember(this);
  }

  int self() {
    return services.self();
  }

  /** The PG {@code id}, loaded from the store if new here, at this OSD's newest map. */
  Pg pg(PgId id) {
    advanceAll();
    Pg pg = pgs.get(id);
    if (pg == null) {
      pg = loadPg(id, services.map().get());
    }
    return pg;
  }

  private Pg loadPg(PgId id, MapView view) {
    Pg pg = new Pg(id, load(id));
    pgs.put(id, pg);
    advance(pg, view);
    return pg;
  }

  private PgLog load(PgId id) {
    SortedMap<String, byte[]> attrs = attributes(PgMeta.metaKey(id));
    return attrs == null ? PgLog.empty(id) : PgLog.load(id, attrs);
  }

  /**
   * Every attribute of {@code key} (getXattrs completes inside the call), or null when the object
   * does not exist; other store failures throw.
   */
  SortedMap<String, byte[]> attributes(ObjectKey key) {
    Loaded loaded = new Loaded();
    store.getXattrs(
        key,
        "",
        (value, f) -> {
          loaded.attrs = value;
          loaded.failure = f;
          loaded.done = true;
        });
    if (!loaded.done) {
      throw new IllegalStateException("getXattrs did not complete inside the call");
    }
    if (loaded.failure != null) {
      if (loaded.failure.code() == StoreException.Code.NOT_FOUND) {
        return null;
      }
      throw ObjectOpsException.from(loaded.failure);
    }
    return loaded.attrs;
  }

  /** What {@code getXattrs} completed with. */
  private static final class Loaded {
    SortedMap<String, byte[]> attrs;
    StoreException failure;
    boolean done;
  }

  /** A new map: every loaded PG moves to it. */
  void advanceAll() {
    MapView view = services.map().get();
    if (view.epoch() == mapEpoch) {
      return;
    }
    mapEpoch = view.epoch();
    for (Pg pg : pgs.values()) {
      advance(pg, view);
    }
    loadLed(view);
  }

  /**
   * Loads every PG of this shard that this OSD is the acting primary of in {@code view} and has not
   * loaded yet, which starts its peering: a PG peers, and recovers its members, at each new
   * interval as Ceph's do, not only once some client's op reaches it (until then, a new or wiped
   * OSD's PGs that no client touched were never recovered, and wiping the other copies in turn lost
   * their objects).
   */
  private void loadLed(MapView view) {
    for (PoolInfo pool : view.map().pools().values()) {
      for (int seed = 0; seed < pool.pgNum(); seed++) {
        PgId id = new PgId(pool.id(), seed);
        if (PgMeta.shardOf(id, shardCount) == shard && !pgs.containsKey(id)) {
          PgMapping mapping = view.mapping(id);
          if (mapping != null && mapping.actingPrimary() == self()) {
            try {
              loadPg(id, view);
            } catch (RuntimeException e) {
              // A PG whose log does not load waits for a client's op, which gets the error; the
              // shard's other PGs peer.
              LOG.warning("pg " + id + " does not load: " + e.getMessage());
            }
          }
        }
      }
    }
  }

  private void advance(Pg pg, MapView view) {
    if (!pg.advance(view.map(), view.mapping(pg.id), self())) {
      return;
    }
    primary.intervalChanged(pg);
    LOG.fine("pg " + pg.id + " interval from epoch " + pg.intervalStart + ": acting " + pg.acting);
    if (pg.state == Pg.State.PEERING) {
      peering.start(pg);
    }
  }

  /** Runs {@code work} on this shard's thread after {@code millis} (retries and resends). */
  @SuppressWarnings("FutureReturnValueIgnored") // nothing to cancel: work checks it is still due
  void later(long millis, Runnable work) {
    services
        .timer()
        .schedule(() -> executor.execute(work), millis, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** PG states by name, for status and metrics. */
  Map<String, Integer> states() {
    Map<String, Integer> counts = new HashMap<>();
    for (Pg pg : pgs.values()) {
      counts.merge(pg.stateName(), 1, Integer::sum);
    }
    return counts;
  }
}
