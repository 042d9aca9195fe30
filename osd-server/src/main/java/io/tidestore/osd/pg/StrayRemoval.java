package io.tidestore.osd.pg;

import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * Removes this shard's stray PG copies (Ceph's stray removal): a copy of a PG whose acting set no
 * longer holds this OSD, once the PG's primary answers that the PG is active+clean without it
 * (STRAY_QUERY). Until then the copy is kept: peering probes it when the PG's last activation names
 * this OSD, and it may be the only one holding the PG's newest writes.
 *
 * <p>Removal first marks the copy ({@link PgMeta#REMOVING} on its metadata object), then removes
 * its objects a page at a time, then the metadata object: a copy that holds the mark is never
 * loaded as the PG's data ({@link #refuseIfRemoving}), and a restart finds the mark and finishes.
 *
 * <p>A pool deleted from the map ({@code pool rm}) has no primary to ask: its objects and its PGs'
 * metadata objects here are purged at once, as Ceph removes a deleted pool's PGs. Runs on the
 * shard's thread, started by {@link #tick}, one removal or purge at a time per shard.
 */
final class StrayRemoval {
  private static final Logger LOG = Logger.getLogger(StrayRemoval.class.getName());

  /**
   * How long a copy waits after its primary said "not yet" (or did not answer) before it is asked
   * again: the next tick but one at most, so a PG that just went clean lets its strays go soon.
   */
  static final long RETRY_MILLIS = 4_000;

  /** Objects removed per transaction. */
  private static final int REMOVE_BATCH = 64;

  private final ShardPgs shard;

  /** The PG whose copy is being removed here, or null. */
  private PgId removing;

  /** The deleted pool whose objects are being purged here, or -1. */
  private int purging = -1;

  /** PGs whose primary was asked, and when each may be asked again. */
  private final Map<PgId, Long> askedUntil = new HashMap<>();

  private final Set<PgId> asking = new HashSet<>();

  /** Copies their primaries let go while another removal ran: removed next, one after another. */
  private final ArrayDeque<PgId> approved = new ArrayDeque<>();

  StrayRemoval(ShardPgs shard) {
    this.shard = shard;
  }

  /** Throws TRY_AGAIN while {@code id}'s copy here is being removed: nothing may load it. */
  void refuseIfRemoving(PgId id) {
    if (id.equals(removing)) {
      throw new ObjectOpsException(
          ObjectOpsException.Code.TRY_AGAIN, "pg " + id + ": this OSD is removing its stray copy");
    }
  }

  /**
   * Looks for stray copies here: resumes a removal a restart interrupted, and asks the primary of
   * each other stray whether it may go.
   */
  void tick() {
    if (removing != null || purging >= 0) {
      return;
    }
    MapView view = shard.services.map().get();
    for (int pool = 0; pool < view.map().nextPoolId(); pool++) {
      if (!view.map().pools().containsKey(pool)
          && (holdsAny(pool) || holdsAny(PgMeta.META_POOL_BASE + pool))) {
        purge(pool);
        return;
      }
    }
    for (PgId id : localPgs(view)) {
      if (marked(id)) {
        start(id, "a removal a restart interrupted");
        return;
      }
      if (stray(id, view)) {
        ask(id, view.mapping(id).actingPrimary(), view.epoch());
      }
    }
  }

  /**
   * Whether this OSD's copy of {@code id} is a stray in {@code view}: this OSD is up, placed
   * outside the PG (neither chosen, which keeps a member that is down but in, nor acting), and the
   * PG's primary is up to answer. A restarted OSD asks nothing until the map has it up again.
   */
  private boolean stray(PgId id, MapView view) {
    PgMapping mapping = view.mapping(id);
    int self = shard.self();
    return mapping != null
        && view.up(self)
        && !mapping.chosen().contains(self)
        && !mapping.acting().contains(self)
        && mapping.actingPrimary() >= 0
        && view.up(mapping.actingPrimary());
  }

  /**
   * The primary's side of STRAY_QUERY from OSD {@code asker}: yes once the PG is active+clean here
   * without it and its last recorded activation does not name it (so peering never needs its copy),
   * else TRY_AGAIN saying why not.
   */
  void answer(Pg pg, int asker, CompletableFuture<Void> done) {
    String not = whyNot(pg, asker);
    if (not == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(
          new ObjectOpsException(
              ObjectOpsException.Code.TRY_AGAIN,
              "pg " + pg.id + ": osd." + asker + "'s copy is still needed: " + not));
    }
  }

  private String whyNot(Pg pg, int asker) {
    if (pg.primary != shard.self()) {
      return "this OSD is not its primary";
    }
    PgMapping mapping = shard.services.map().get().mapping(pg.id);
    if (pg.acting.contains(asker) || (mapping != null && mapping.chosen().contains(asker))) {
      return "osd." + asker + " is placed in it";
    }
    if (pg.state != Pg.State.ACTIVE
        || pg.activating
        || !pg.recoveringMembers.isEmpty()
        || pg.backfilling
        || pg.acting.size() < pg.size) {
      return "it is " + pg.stateName();
    }
    var last = pg.lastActivation;
    if (last == null
        || last.members().contains(asker)
        || !new HashSet<>(last.members()).equals(new HashSet<>(pg.acting))) {
      return "its activation with the acting set is not recorded yet";
    }
    return null;
  }

  private void ask(PgId id, int primary, long epoch) {
    long now = System.currentTimeMillis();
    Long until = askedUntil.get(id);
    if (asking.contains(id) || approved.contains(id) || (until != null && now < until)) {
      return;
    }
    asking.add(id);
    shard
        .services
        .peers()
        .strayQuery(primary, shard.address(primary), epoch, id, shard.self())
        .whenCompleteAsync(
            (v, failure) -> {
              asking.remove(id);
              if (failure != null) {
                askedUntil.put(id, System.currentTimeMillis() + RETRY_MILLIS);
                return;
              }
              askedUntil.remove(id);
              approved.add(id);
              if (removing == null) {
                next();
              }
            },
            shard.executor);
  }

  /**
   * Starts removing the next copy its primary let go that is still a stray (asked on an older map:
   * only a copy still placed outside the PG now goes).
   */
  private void next() {
    MapView view = shard.services.map().get();
    PgId id;
    while ((id = approved.poll()) != null) {
      if (stray(id, view)) {
        start(id, "its primary has it active+clean without this OSD");
        return;
      }
    }
  }

  /** Marks the copy, then removes its objects and its metadata object. */
  private void start(PgId id, String why) {
    removing = id;
    shard.forget(id);
    long epoch = shard.epoch();
    ObjectKey meta = PgMeta.metaKey(id);
    byte[] mark = ByteBuffer.allocate(8).putLong(epoch).array();
    Transaction t = new Transaction().touch(meta).setXattr(meta, PgMeta.REMOVING, mark);
    CompletableFuture<Void> marked = new CompletableFuture<>();
    shard.store.submit(t, (v, f) -> shard.executor.execute(() -> settle(marked, f)));
    long[] objects = {0};
    marked
        .thenCompose(v -> removeObjects(id, objects))
        .thenCompose(v -> submit(new Transaction().remove(meta)))
        .whenCompleteAsync(
            (v, failure) -> {
              removing = null;
              if (failure != null) {
                // The mark stays: the next tick starts over where the objects left off.
                LOG.warning("pg " + id + ": removing the stray copy failed: " + failure);
                return;
              }
              shard.services.metrics().strayRemoved();
              LOG.info(
                  "pg "
                      + id
                      + ": removed this OSD's stray copy ("
                      + objects[0]
                      + " objects): "
                      + why);
              next();
            },
            shard.executor);
  }

  /** Removes every object of deleted pool {@code pool} here, then its PGs' metadata objects. */
  private void purge(int pool) {
    purging = pool;
    shard.forgetPool(pool);
    long[] objects = {0};
    removeAll(pool, objects)
        .thenCompose(v -> removeAll(PgMeta.META_POOL_BASE + pool, new long[1]))
        .whenCompleteAsync(
            (v, failure) -> {
              purging = -1;
              if (failure != null) {
                LOG.warning("pool " + pool + ": purging the deleted pool failed: " + failure);
                return;
              }
              LOG.info(
                  "pool "
                      + pool
                      + " was deleted: removed its "
                      + objects[0]
                      + " objects and its PGs' metadata from this shard");
            },
            shard.executor);
  }

  /** Whether this shard holds any object of store pool {@code pool}. */
  private boolean holdsAny(long pool) {
    return !page(pool, null, 1).keys().isEmpty();
  }

  /**
   * Up to {@code limit} objects of store pool {@code pool} here after {@code after} (null: from the
   * first), in name order; a listing completes inside the call.
   */
  private ListPage page(long pool, ObjectKey after, int limit) {
    ListPage[] page = {null};
    StoreException[] failure = {null};
    shard.store.list(
        pool,
        "",
        after,
        limit,
        (ListPage p, StoreException f) -> {
          failure[0] = f;
          page[0] = p;
        });
    if (failure[0] != null) {
      throw ObjectOpsException.from(failure[0]);
    }
    return page[0];
  }

  /** Removes every object of store pool {@code pool} here, a page at a time. */
  private CompletableFuture<Void> removeAll(long pool, long[] count) {
    List<ObjectKey> keys;
    try {
      keys = page(pool, null, PgListing.PAGE).keys();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    count[0] += keys.size();
    return removeBatches(keys).thenComposeAsync(v -> removeAll(pool, count), shard.executor);
  }

  /** Removes {@code keys}, {@link #REMOVE_BATCH} to a transaction, one after the other. */
  private CompletableFuture<Void> removeBatches(List<ObjectKey> keys) {
    CompletableFuture<Void> batches = CompletableFuture.completedFuture(null);
    for (int from = 0; from < keys.size(); from += REMOVE_BATCH) {
      Transaction t = new Transaction();
      for (ObjectKey key : keys.subList(from, Math.min(keys.size(), from + REMOVE_BATCH))) {
        t.remove(key);
      }
      batches = batches.thenCompose(v -> submit(t));
    }
    return batches;
  }

  /** Removes the PG's objects, a page at a time, counting them in {@code count[0]}. */
  private CompletableFuture<Void> removeObjects(PgId id, long[] count) {
    PoolInfo pool = shard.services.map().get().map().pools().get(id.pool());
    if (pool == null) {
      return CompletableFuture.completedFuture(null);
    }
    List<ObjectKey> page = new ArrayList<>();
    StoreException[] failure = {null};
    shard.store.listHashRange(
        id.pool(),
        HashRange.ofPg(pool.pgNum(), id.seed()),
        null,
        PgListing.PAGE,
        (ListPage p, StoreException f) -> {
          failure[0] = f;
          if (f == null) {
            page.addAll(p.keys());
          }
        });
    if (failure[0] != null) {
      return CompletableFuture.failedFuture(ObjectOpsException.from(failure[0]));
    }
    if (page.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    count[0] += page.size();
    // The page's objects are gone once the batches commit: list again from the start.
    return removeBatches(page).thenComposeAsync(v -> removeObjects(id, count), shard.executor);
  }

  private CompletableFuture<Void> submit(Transaction t) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    shard.store.submit(t, (v, f) -> shard.executor.execute(() -> settle(done, f)));
    return done;
  }

  private static void settle(CompletableFuture<Void> done, StoreException failure) {
    if (failure != null) {
      done.completeExceptionally(failure);
    } else {
      done.complete(null);
    }
  }

  /**
   * The PGs of live pools this shard holds a copy of: metadata objects in the pools' metadata
   * pools, in this shard (a listing completes inside the call).
   */
  private List<PgId> localPgs(MapView view) {
    List<PgId> ids = new ArrayList<>();
    for (PoolInfo pool : view.map().pools().values()) {
      long metaPool = PgMeta.META_POOL_BASE + pool.id();
      ObjectKey after = null;
      do {
        ListPage page = page(metaPool, after, PgListing.PAGE);
        for (ObjectKey key : page.keys()) {
          try {
            PgId id = PgId.parse(key.name());
            if (id.pool() == pool.id()) {
              ids.add(id);
            }
          } catch (IllegalArgumentException e) {
            // Not a PG's metadata object: nothing of ours to remove.
          }
        }
        after = page.isLast() ? null : page.next();
      } while (after != null);
    }
    return ids;
  }

  /**
   * Whether {@code id}'s copy here holds the removal mark (one attribute read, which completes
   * inside the call).
   */
  boolean marked(PgId id) {
    boolean[] found = {false};
    StoreException[] failure = {null};
    shard.store.getXattr(
        PgMeta.metaKey(id),
        PgMeta.REMOVING,
        (value, f) -> {
          found[0] = f == null;
          failure[0] = f;
        });
    if (failure[0] != null
        && failure[0].code() != StoreException.Code.NOT_FOUND
        && failure[0].code() != StoreException.Code.NO_ATTRIBUTE) {
      throw ObjectOpsException.from(failure[0]);
    }
    return found[0];
  }
}
