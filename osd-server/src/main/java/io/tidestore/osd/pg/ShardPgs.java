package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.PgLog;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.pgstats.PgStat;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * The PGs of one shard (a cluster OSD keeps each PG's objects and log in one shard, {@link
 * PgMeta#shardOf}): loaded from the store on first use, moved to every new map, each peering,
 * serving as primary or applying as replica, deep-scrubbed by their primary. Everything here runs
 * on the shard's owner thread.
 */
final class ShardPgs {
  private static final Logger LOG = Logger.getLogger(ShardPgs.class.getName());

  final int shard;
  final ShardStore store;
  final Executor executor;
  final PgServices services;
  final Primary primary;
  final Replica replica;
  final Peering peering;
  final Recovery recovery;
  final RecoveryMember member;
  final ObjectCopies copies;
  final ObjectTransfer transfer;
  final DeepScrub scrub;
  final Activation activation;
  final StrayRemoval strays;
  private final Map<PgId, Pg> pgs = new HashMap<>();
  private long mapEpoch;

  ShardPgs(int shard, ShardStore store, Executor executor, PgServices services) {
    this.shard = shard;
    this.store = store;
    this.executor = executor;
    this.services = services;
    this.primary = new Primary(this);
    this.replica = new Replica(this);
    this.peering = new Peering(this);
    this.copies = new ObjectCopies(this);
    this.transfer = new ObjectTransfer(this);
    this.scrub = new DeepScrub(this);
    this.recovery = new Recovery(this);
    this.member = new RecoveryMember(this);
    this.activation = new Activation(this);
    this.strays = new StrayRemoval(this);
  }

  int self() {
    return services.self();
  }

  /** The object protocol address of OSD {@code osd} in the newest map; throws when it has none. */
  String address(int osd) {
    String address = services.map().get().address(osd);
    if (address == null) {
      throw new IllegalStateException("osd." + osd + " has no address in the map");
    }
    return address;
  }

  /** The newest map's epoch. */
  long epoch() {
    return services.map().get().epoch();
  }

  /** The PG {@code id}, loaded from the store if new here, at this OSD's newest map. */
  Pg pg(PgId id) {
    advanceAll();
    strays.refuseIfRemoving(id);
    Pg pg = pgs.get(id);
    if (pg == null) {
      SortedMap<String, byte[]> attrs = attributes(PgMeta.metaKey(id));
      if (attrs != null && attrs.containsKey(PgMeta.REMOVING)) {
        // A stray copy whose removal a restart interrupted (the next tick finishes it): it is not
        // the PG's data any more.
        throw new ObjectOpsException(
            ObjectOpsException.Code.TRY_AGAIN, "pg " + id + ": this OSD is removing its old copy");
      }
      pg = new Pg(id, attrs == null ? PgLog.empty(id) : PgLog.load(id, attrs));
      pg.lastDeepScrubMillis = DeepScrub.stampOf(attrs, System.currentTimeMillis());
      pg.lastActive = Activation.lastActiveOf(attrs);
      pgs.put(id, pg);
      advance(pg, services.map().get());
    }
    return pg;
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

  /** Unloads {@code id} (its stray copy is being removed): the next use loads it afresh. */
  void forget(PgId id) {
    Pg pg = pgs.remove(id);
    if (pg != null) {
      pg.releaseHold();
    }
  }

  /** Unloads every PG of deleted pool {@code pool}. */
  void forgetPool(int pool) {
    List<PgId> gone = pgs.keySet().stream().filter(id -> id.pool() == pool).toList();
    gone.forEach(this::forget);
  }

  /** The PGs loaded here. */
  Collection<Pg> loaded() {
    return pgs.values();
  }

  /**
   * A new map: every loaded PG moves to it, and the PGs of this shard that this OSD is now the
   * primary of are loaded (they peer, recover and report without waiting for a client's op).
   */
  void advanceAll() {
    MapView view = services.map().get();
    if (view.epoch() == mapEpoch) {
      return;
    }
    mapEpoch = view.epoch();
    for (Pg pg : pgs.values()) {
      advance(pg, view);
    }
    for (PgId id : view.primaryOf()) {
      if (!pgs.containsKey(id) && PgMeta.shardOf(id, services.shardCount()) == shard) {
        try {
          pg(id);
        } catch (RuntimeException e) {
          // Its log is unreadable here: the PG stays unloaded (and unreported), the rest go on.
          LOG.warning("pg " + id + ": cannot load its log: " + e.getMessage());
        }
      }
    }
  }

  private void advance(Pg pg, MapView view) {
    if (!pg.advance(view.map(), view.mapping(pg.id), self())) {
      if (pg.state == Pg.State.HISTORY_DOWN) {
        // A member of the last activation may be back (up, but outside the acting set): ask again.
        pg.peeringRound++;
        pg.state = Pg.State.PEERING;
        peering.start(pg);
      }
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

  /** Completes on this shard's thread after {@code millis}; at once for 0 (throttles' pauses). */
  CompletableFuture<Void> after(long millis) {
    CompletableFuture<Void> paused = new CompletableFuture<>();
    if (millis > 0) {
      later(millis, () -> paused.complete(null));
    } else {
      paused.complete(null);
    }
    return paused;
  }

  /**
   * Adds the PGs this OSD is primary of to {@code stats}, and every loaded PG to {@code counts}.
   */
  void collect(List<PgStat> stats, Map<String, Integer> counts) {
    advanceAll();
    for (Pg pg : pgs.values()) {
      counts.merge(pg.stateName(), 1, Integer::sum);
      if (pg.primary == self() && pg.state != Pg.State.DOWN) {
        stats.add(new PgStat(pg.id, pg.stateName(), pg.intervalKey(), pg.log.head()));
      }
    }
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
