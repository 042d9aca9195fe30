package io.tidestore.osd.shard;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.ops.ObjectOpsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Runs an op on the reactor that owns its shard and brings the result back to the caller's reactor,
 * like seastar's {@code submit_to}: exactly one hop each way, none when the caller already is the
 * owner. The work runs on {@code owner}'s thread (where the shard may be touched); the returned
 * stage completes on {@code replyTo}'s thread, so the caller's continuation touches only its own
 * reactor's state. Stateless; safe from any thread.
 */
public final class Handoff {
  private Handoff() {}

  /**
   * Calls {@code work} on {@code owner} and completes the result on {@code replyTo}. When the
   * calling thread is {@code owner}'s, {@code work} runs inline and its stage is returned as is. A
   * stopped owner fails the op with ESHUTDOWN; an exception thrown by {@code work} fails it.
   */
  public static <T> CompletionStage<T> submitTo(
      EventExecutor owner, EventExecutor replyTo, Supplier<? extends CompletionStage<T>> work) {
    if (owner.inEventLoop()) {
      return invoke(work);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      owner.execute(
          () ->
              invoke(work)
                  .whenComplete((value, failure) -> completeOn(replyTo, result, value, failure)));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new ObjectOpsException(ObjectOpsException.Code.CLOSED, "owning reactor stopped"));
    }
    return result;
  }

  private static <T> CompletionStage<T> invoke(Supplier<? extends CompletionStage<T>> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static <T> void completeOn(
      EventExecutor replyTo, CompletableFuture<T> result, T value, Throwable failure) {
    Runnable complete =
        () -> {
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(value);
          }
        };
    replyOn(replyTo, complete);
  }

  /**
   * Runs {@code reply} on {@code replyTo}'s thread: inline when already there, else as a task; when
   * that reactor is gone nobody can observe the result on it, so it runs here.
   */
  public static void replyOn(EventExecutor replyTo, Runnable reply) {
    if (replyTo.inEventLoop()) {
      reply.run();
      return;
    }
    try {
      replyTo.execute(reply);
    } catch (RejectedExecutionException e) {
      reply.run();
    }
  }
}
