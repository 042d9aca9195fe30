package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.store.api.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A replica's side of its PGs: a primary's op is applied in one transaction with its log entry, in
 * version order (an entry it already has is answered again, a gap is refused: this copy needs
 * recovery; after an op failed here every op is refused until recovery made this copy whole); a
 * peering query is answered once the ops applied before it are durable, so the head it reports is
 * what the primary sent. Runs on the PG's shard thread.
 */
final class Replica {
  private final ShardPgs shard;

  /** Replicated ops staged and not yet durable, per PG, and the queries waiting for them. */
  private final Map<Pg, Integer> applying = new HashMap<>();

  private final Map<Pg, List<Runnable>> waitingQueries = new HashMap<>();

  Replica(ShardPgs shard) {
    this.shard = shard;
  }

  void replicate(Pg pg, RepOp rep, CompletableFuture<Void> done) {
    PgLogEntry entry = rep.entry();
    if (rep.epoch() < pg.intervalStart) {
      rep.mutation().release();
      done.completeExceptionally(pg.staleFor(rep.epoch(), "sender", ""));
      return;
    }
    if (rep.epoch() > shard.services.map().get().epoch()) {
      shard.services.newerMap().accept(rep.epoch());
    }
    if (pg.failedAt != null) {
      needsRecovery(pg, rep, done, "failed to apply " + pg.failedAt);
      return;
    }
    Eversion head = pg.log.head();
    Eversion staged = lastStaged(pg, head);
    if (!entry.version().after(staged)) {
      rep.mutation().release();
      // Sent again after a broken link: it is here already, but perhaps not yet durable, and the
      // primary counts this answer as durable.
      afterApplies(pg, () -> done.complete(null));
      return;
    }
    if (entry.version().version() != staged.version() + 1) {
      needsRecovery(pg, rep, done, "has " + staged + ", not the entry before " + entry.version());
      return;
    }
    Transaction t = new Transaction();
    Transactions.add(t, PgMeta.objectKey(pg.id.pool(), entry.object()), rep.mutation());
    rep.mutation().release();
    pg.log.stage(t, entry);
    Eversion trimmedTo =
        pg.log.stageRollingTrim(
            t, entry.version(), pg.logKeep(shard.services.map().get().pgCopies()));
    pg.remember(entry);
    pg.lastStaged = entry.version();
    applying.merge(pg, 1, Integer::sum);
    shard.store.submit(
        t,
        (v, failure) -> {
          if (failure == null) {
            pg.log.committed(entry);
            if (trimmedTo != null) {
              pg.trimmed(trimmedTo);
            }
            done.complete(null);
          } else {
            if (pg.failedAt == null || entry.version().compareTo(pg.failedAt) < 0) {
              pg.failedAt = entry.version();
            }
            pg.forget(entry);
            done.completeExceptionally(ObjectOpsException.from(failure));
          }
          if (applying.merge(pg, -1, Integer::sum) == 0) {
            applying.remove(pg);
            List<Runnable> queries = waitingQueries.remove(pg);
            if (queries != null) {
              queries.forEach(Runnable::run);
            }
          }
        });
  }

  /** Refuses {@code rep} (TRY_AGAIN): this copy {@code why}, and only recovery mends it. */
  private void needsRecovery(Pg pg, RepOp rep, CompletableFuture<Void> done, String why) {
    rep.mutation().release();
    done.completeExceptionally(
        new ObjectOpsException(
            Code.TRY_AGAIN,
            "pg " + pg.id + " on osd." + shard.self() + " " + why + ": it needs recovery"));
  }

  private static Eversion lastStaged(Pg pg, Eversion head) {
    return pg.lastStaged != null && pg.lastStaged.after(head) ? pg.lastStaged : head;
  }

  /** Answers a primary's peering query, after the ops it sent before it are durable. */
  void query(Pg pg, CompletableFuture<PgPeerInfo> done) {
    afterApplies(
        pg,
        () -> {
          // Nothing committed at or after the failed entry: this log has no gap after all (every
          // op staged after it failed too), and a copy that refused ops must take them again.
          if (pg.failedAt != null && pg.log.entries().tailMap(pg.failedAt, true).isEmpty()) {
            pg.failedAt = null;
          }
          done.complete(new PgPeerInfo(pg.vouchedHead(), pg.log.tail(), pg.lastActive));
        });
  }

  /** Runs {@code then} once every replicated op of {@code pg} staged so far is durable. */
  void afterApplies(Pg pg, Runnable then) {
    if (applying.containsKey(pg)) {
      waitingQueries.computeIfAbsent(pg, p -> new ArrayList<>()).add(then);
    } else {
      then.run();
    }
  }
}
