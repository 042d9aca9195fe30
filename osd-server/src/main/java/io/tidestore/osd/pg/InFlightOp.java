package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.ObjectOpsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A primary's op between its ordering and its acknowledgement: applied here and on every replica,
 * each a vote; the client (and any resend of the same request meanwhile) is answered once all are
 * in. Owned by the PG's shard thread.
 */
final class InFlightOp {
  final PgLogEntry entry;
  final Mutation mutation;

  /** When the primary ordered it: replication latency runs from here to the last vote. */
  final long startNanos = System.nanoTime();

  private final List<CompletableFuture<Void>> waiters = new ArrayList<>(1);
  private int votesLeft;
  private boolean finished;

  InFlightOp(PgLogEntry entry, Mutation mutation, int votes, CompletableFuture<Void> client) {
    this.entry = entry;
    this.mutation = mutation;
    this.votesLeft = votes;
    waiters.add(client);
  }

  /** A resend of the same request: answered with the original. */
  void join(CompletableFuture<Void> resend) {
    waiters.add(resend);
  }

  /** One member has it durable; returns true when that was the last one. */
  boolean voted() {
    return --votesLeft == 0 && !finished;
  }

  boolean finished() {
    return finished;
  }

  void succeed() {
    finished = true;
    for (CompletableFuture<Void> w : waiters) {
      w.complete(null);
    }
  }

  /** Answers every waiter with {@code why}; the client sends again, and the log recognises it. */
  void fail(ObjectOpsException why) {
    if (finished) {
      return;
    }
    finished = true;
    for (CompletableFuture<Void> w : waiters) {
      w.completeExceptionally(why);
    }
  }
}
