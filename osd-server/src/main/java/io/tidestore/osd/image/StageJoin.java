package io.tidestore.osd.image;

import io.tidestore.osd.ops.ObjectOpsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Completes once every piece of a request did; the first failure fails it. Pieces may complete on
 * any thread.
 */
final class StageJoin {
  final CompletableFuture<Void> done = new CompletableFuture<>();
  private final AtomicInteger left = new AtomicInteger(1); // 1 until every piece is issued

  void add(CompletionStage<?> piece) {
    left.incrementAndGet();
    piece.whenComplete((v, e) -> finish(e));
  }

  /** Every piece is issued: the join completes once they all have. */
  CompletableFuture<Void> issued() {
    finish(null);
    return done;
  }

  private void finish(Throwable failure) {
    if (failure != null) {
      done.completeExceptionally(ObjectOpsException.unwrap(failure));
    } else if (left.decrementAndGet() == 0) {
      done.complete(null);
    }
  }
}
