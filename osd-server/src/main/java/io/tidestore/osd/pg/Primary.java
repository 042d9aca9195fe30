package io.tidestore.osd.pg;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A primary's side of its PGs, as Ceph's primary-copy replication: a client's change is ordered in
 * the PG log (epoch, version), applied here in one transaction with its log entry and the object's
 * version, sent to every replica in parallel, and acknowledged once every member of the acting set
 * has it durable. A resent request already in the log is answered, not applied again. Reads are
 * served here. Ops to an object a deep scrub holds wait until it is released. Runs on the PG's
 * shard thread.
 */
// Each send handles its own outcome in whenComplete; the resend timer's future carries nothing.
@SuppressWarnings("FutureReturnValueIgnored")
final class Primary {
  private static final java.util.logging.Logger LOG =
      java.util.logging.Logger.getLogger(Primary.class.getName());

  /** How long a replicated op waits before it is sent again over a link that broke. */
  private static final long RESEND_MILLIS = 200;

  private final ShardPgs shard;

  Primary(ShardPgs shard) {
    this.shard = shard;
  }

  /**
   * Whether {@code pg} takes client ops from a client on map {@code epoch} now; else fails {@code
   * done} with why (STALE_MAP: the client's map predates the PG's interval; TRY_AGAIN: peering,
   * below min_size, or this OSD's map is the older one) and returns false.
   */
  boolean serving(Pg pg, long epoch, CompletableFuture<?> done) {
    MapView view = shard.services.map().get();
    if (epoch < pg.intervalStart) {
      done.completeExceptionally(
          pg.staleFor(epoch, "client", " (this OSD has " + view.epoch() + ")"));
      return false;
    }
    if (epoch > view.epoch()) {
      shard.services.newerMap().accept(epoch);
      done.completeExceptionally(
          new ObjectOpsException(
              Code.TRY_AGAIN, "this OSD has map " + view.epoch() + ", the client " + epoch));
      return false;
    }
    if (pg.primary != shard.self()) {
      done.completeExceptionally(
          new ObjectOpsException(
              Code.STALE_MAP,
              "osd."
                  + shard.self()
                  + " is not the primary of pg "
                  + pg.id
                  + " in epoch "
                  + view.epoch()));
      return false;
    }
    if (pg.state != Pg.State.ACTIVE) {
      done.completeExceptionally(
          new ObjectOpsException(
              Code.TRY_AGAIN,
              "pg " + pg.id + " is " + pg.stateName() + " (acting " + pg.acting + ")"));
      return false;
    }
    return true;
  }

  void mutate(Pg pg, ClientRequest r, Mutation m, CompletableFuture<Void> done) {
    if (!serving(pg, r.epoch(), done)) {
      m.release();
      return;
    }
    Eversion seen = pg.applied.get(new Pg.RequestId(r.client(), r.tid()));
    if (seen != null) {
      m.release();
      InFlightOp running = pg.inFlight.get(seen);
      if (running != null) {
        running.join(done);
      } else {
        done.complete(null); // in the log, and peering made every member's log the same
      }
      return;
    }
    if (pg.heldByScrub(r.name())) {
      // A deep scrub compares (and may repair) this object: the change waits for it.
      pg.afterScrubHold(() -> mutate(pg, r, m, done));
      return;
    }
    MapView view = shard.services.map().get();
    Eversion version = pg.log.nextVersion(view.epoch());
    PgLogEntry entry =
        new PgLogEntry(
            m.deletes() ? PgLogEntry.Op.DELETE : PgLogEntry.Op.MODIFY,
            r.name(),
            version,
            pg.objectVersions.getOrDefault(r.name(), Eversion.ZERO),
            r.client(),
            r.tid());
    Transaction t = new Transaction();
    Transactions.add(t, PgMeta.objectKey(pg.id.pool(), r.name()), m);
    pg.log.stage(t, entry);
    Eversion trimmedTo = pg.log.stageRollingTrim(t, version, pg.logKeep(view.pgCopies()));
    pg.remember(entry);
    List<Integer> replicas = pg.writeTargets(shard.self());
    InFlightOp op = new InFlightOp(entry, m, 1 + replicas.size(), done);
    pg.inFlight.put(version, op);
    long interval = pg.peeringRound;
    shard.store.submit(
        t,
        (v, failure) -> {
          if (failure != null) {
            // The client hears the store's refusal (ENOSPC, EIO), not a TRY_AGAIN it would resend
            // forever; replicas may have applied the entry, so the PG then peers again.
            fail(pg, op, ObjectOpsException.from(failure));
            if (pg.peeringRound == interval) {
              pg.forget(entry);
              repeer(pg, "its op " + entry.version() + " failed here: " + failure.getMessage());
            }
            return;
          }
          pg.log.committed(entry);
          if (trimmedTo != null) {
            pg.trimmed(trimmedTo);
          }
          vote(pg, op);
        });
    int[] sendsLeft = {replicas.size()};
    RepOp rep = new RepOp(view.epoch(), pg.id, entry, m);
    for (int osd : replicas) {
      send(pg, op, rep, osd, interval, sendsLeft);
    }
    if (replicas.isEmpty()) {
      m.release();
    }
  }

  /**
   * Sends {@code rep} to replica {@code osd}, again after a broken link, while the interval lasts.
   */
  private void send(Pg pg, InFlightOp op, RepOp rep, int osd, long interval, int[] sendsLeft) {
    String address = shard.services.map().get().address(osd);
    CompletableFuture<Void> sent =
        address == null
            ? CompletableFuture.failedFuture(new ClosedChannelException())
            : shard.services.peers().replicate(osd, address, rep);
    sent.whenComplete(
        (v, e) ->
            shard.executor.execute(
                () -> {
                  Throwable cause = e == null ? null : ObjectOpsException.unwrap(e);
                  boolean current = pg.peeringRound == interval && !op.finished();
                  if (cause instanceof ClosedChannelException
                      || cause instanceof java.io.IOException) {
                    if (current) {
                      shard.later(RESEND_MILLIS, () -> send(pg, op, rep, osd, interval, sendsLeft));
                      return;
                    }
                  } else if (cause != null && current) {
                    if (ObjectOpsException.is(cause, Code.STALE_MAP)) {
                      shard.services.newerMap().accept(shard.services.map().get().epoch() + 1);
                    }
                    // The replica lacks the entry: it must have it (recovery) before any op, or
                    // this op's resend (which the log would answer as done), is acknowledged.
                    repeer(pg, "replica osd." + osd + " refused: " + cause.getMessage());
                  } else if (cause == null && pg.peeringRound == interval) {
                    vote(pg, op);
                  }
                  if (--sendsLeft[0] == 0) {
                    rep.mutation().release();
                  }
                }));
  }

  private void vote(Pg pg, InFlightOp op) {
    if (op.voted()) {
      shard.services.metrics().replicated(op.startNanos);
      op.succeed();
      pg.inFlight.remove(op.entry.version());
    }
  }

  /**
   * The members' logs may differ now (an op failed on one of them): the PG peers again, answering
   * its ops in flight TRY_AGAIN; recovery makes the logs the same before it serves again.
   */
  private void repeer(Pg pg, String why) {
    LOG.warning("pg " + pg.id + ": " + why + "; peering again");
    pg.peeringRound++;
    intervalChanged(pg);
    pg.state = Pg.State.PEERING;
    shard.peering.start(pg);
  }

  private void fail(Pg pg, InFlightOp op, ObjectOpsException why) {
    op.fail(why);
    pg.inFlight.remove(op.entry.version());
  }

  /**
   * A new interval: ops in flight are answered TRY_AGAIN (their clients send them again), and ops
   * that waited for an object a deep scrub held are answered as the PG now stands.
   */
  void intervalChanged(Pg pg) {
    for (InFlightOp op : new ArrayList<>(pg.inFlight.values())) {
      op.fail(
          new ObjectOpsException(
              Code.TRY_AGAIN, "pg " + pg.id + " changed its acting set to " + pg.acting));
    }
    pg.inFlight.clear();
    pg.releaseHold();
  }

  void read(Pg pg, ClientRequest r, long offset, int length, CompletableFuture<ByteBuf> done) {
    if (!serving(pg, r.epoch(), done)) {
      return;
    }
    if (pg.heldByScrub(r.name())) {
      pg.afterScrubHold(() -> read(pg, r, offset, length, done));
      return;
    }
    ByteBuf into = ByteBufAllocator.DEFAULT.directBuffer(length, length);
    shard.store.read(
        key(pg, r),
        offset,
        MemorySegment.ofBuffer(into.nioBuffer(0, length)),
        (count, failure) -> {
          if (failure != null) {
            into.release();
            done.completeExceptionally(ObjectOpsException.from(failure));
          } else {
            done.complete(into.writerIndex(count));
          }
        });
  }

  void stat(Pg pg, ClientRequest r, CompletableFuture<ObjectInfo> done) {
    if (!serving(pg, r.epoch(), done)) {
      return;
    }
    if (pg.heldByScrub(r.name())) {
      pg.afterScrubHold(() -> stat(pg, r, done));
      return;
    }
    shard.store.stat(
        key(pg, r),
        (st, failure) ->
            finish(done, failure, failure == null ? new ObjectInfo(st.size(), 0) : null));
  }

  void allocation(
      Pg pg, ClientRequest r, long offset, long length, CompletableFuture<Allocation> done) {
    if (!serving(pg, r.epoch(), done)) {
      return;
    }
    if (pg.heldByScrub(r.name())) {
      pg.afterScrubHold(() -> allocation(pg, r, offset, length, done));
      return;
    }
    shard.store.allocation(key(pg, r), offset, length, (a, failure) -> finish(done, failure, a));
  }

  void getXattr(Pg pg, ClientRequest r, String name, CompletableFuture<ByteBuf> done) {
    if (!serving(pg, r.epoch(), done)) {
      return;
    }
    if (pg.heldByScrub(r.name())) {
      pg.afterScrubHold(() -> getXattr(pg, r, name, done));
      return;
    }
    shard.store.getXattr(
        key(pg, r),
        name,
        (value, failure) ->
            finish(
                done,
                failure,
                failure == null ? io.netty.buffer.Unpooled.wrappedBuffer(value) : null));
  }

  private static <T> void finish(CompletableFuture<T> done, StoreException failure, T value) {
    if (failure != null) {
      done.completeExceptionally(ObjectOpsException.from(failure));
    } else {
      done.complete(value);
    }
  }

  private static ObjectKey key(Pg pg, ClientRequest r) {
    return PgMeta.objectKey(pg.id.pool(), r.name());
  }
}
