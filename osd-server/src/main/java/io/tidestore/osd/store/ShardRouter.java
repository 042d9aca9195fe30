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
    ShardOwner owner = shards.ownerOf(shardId);
    EventExecutor caller = callerLoop(owner);
    return Handoff.submitTo(
        owner.executor(),
        caller,
        () -> {
          CompletableFuture<T> done = new CompletableFuture<>();
          op.start(
              owner.shard(shardId),
              (value, failure) -> {
                if (owner.acksOnFinisher()) {
                  owner.acknowledge(() -> finish(done, value, failure));
                } else {
                  finish(done, value, failure);
                }
              });
          return done;
        });
  }

  private static <T> void finish(CompletableFuture<T> done, T value, StoreException failure) {
    if (failure != null) {
      done.completeExceptionally(ObjectOpsException.from(failure));
    } else {
      done.complete(value);
    }
  }

  /**
   * Hands {@code reply} to {@code caller}: through the owner's finisher first when the commit
   * thread delivered the completion (the classic engine), else straight.
   */
  static void reply(ShardOwner owner, EventExecutor caller, Runnable reply) {
    if (owner.acksOnFinisher()) {
      owner.acknowledge(() -> Handoff.replyOn(caller, reply));
    } else {
      Handoff.replyOn(caller, reply);
    }
  }

  /** The calling loop (ops are called on a reactor or a messenger), else the owner's. */
  EventExecutor callerLoop(ShardOwner fallback) {
    for (EventExecutor loop : shards.callerLoops()) {
      if (loop.inEventLoop()) {
        return loop;
      }
    }
    // A reactor that owns no shard (R > S) or a foreign thread: reply where the op runs; the
    // protocol handler hops to the connection's loop itself.
    return fallback.executor();
  }

  /** Runs {@code work} on {@code owner}; a stopped owner fails {@code refused}. */
  static <T> void onOwner(ShardOwner owner, StoreCompletion<T> refused, Runnable work) {
    try {
      owner.executor().execute(work);
    } catch (RejectedExecutionException e) {
      refused.complete(
          null, new StoreException(StoreException.Code.CLOSED, "owning reactor stopped"));
    }
  }
}
