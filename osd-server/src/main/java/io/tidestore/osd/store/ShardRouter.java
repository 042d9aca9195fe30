package io.tidestore.osd.store;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.shard.Handoff;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * Routes an op to the reactor owning its shard: run there, handed over once from the caller's
 * reactor when that is another one ({@link Handoff}), the reply coming back to the caller's
 * reactor. Store failures leave here as {@link ObjectOpsException}s. Stateless beyond the mounted
 * shards; safe from any thread.
 */
final class ShardRouter {
  private final MountedShards shards;

  ShardRouter(MountedShards shards) {
    this.shards = shards;
  }

  /** One store call on a shard, completing {@code done} on the shard's reactor. */
  @FunctionalInterface
  interface ShardOp<T> {
    void start(ShardStore shard, StoreCompletion<T> done);
  }

  /** Runs {@code op} on shard {@code shardId}, replying on the calling reactor. */
  <T> CompletionStage<T> onShard(int shardId, ShardOp<T> op) {
    ReactorShards owner = shards.ownerOf(shardId);
    EventExecutor caller = callerLoop(owner);
    return Handoff.submitTo(
        owner.reactor().loop(),
        caller,
        () -> {
          CompletableFuture<T> done = new CompletableFuture<>();
          op.start(
              owner.shard(shardId),
              (value, failure) -> {
                if (failure != null) {
                  done.completeExceptionally(ObjectOpsException.from(failure));
                } else {
                  done.complete(value);
                }
              });
          return done;
        });
  }

  /** The calling reactor's loop (ops are called on one), else the owner's. */
  EventExecutor callerLoop(ReactorShards fallback) {
    for (ReactorShards reactor : shards.reactors()) {
      if (reactor.reactor().loop().inEventLoop()) {
        return reactor.reactor().loop();
      }
    }
    // A reactor that owns no shard (R > S) or a foreign thread: reply where the op runs; the
    // protocol handler hops to the connection's loop itself.
    return fallback.reactor().loop();
  }

  /** Runs {@code work} on {@code owner}'s reactor; a stopped reactor fails {@code refused}. */
  static <T> void onOwner(ReactorShards owner, StoreCompletion<T> refused, Runnable work) {
    try {
      owner.reactor().loop().execute(work);
    } catch (RejectedExecutionException e) {
      refused.complete(
          null, new StoreException(StoreException.Code.CLOSED, "owning reactor stopped"));
    }
  }
}
