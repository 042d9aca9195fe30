package io.tidestore.osd.classic;

import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PlacementGroup} as a Netty executor, so the code that routes an op to the owner of its
 * shard ({@code Handoff}, the store's admin calls) is the same in both engines: {@link #execute}
 * queues the task as an op of the PG on its op shard, and {@link #inEventLoop(Thread)} is true for
 * the thread holding the PG lock (a worker running one of its ops, or the commit thread), which may
 * call the shard directly. It has no life cycle of its own: the op shard's workers stop with the
 * engine, after which {@link #execute} refuses tasks.
 */
public final class PgExecutor extends AbstractEventExecutor {
  private final PlacementGroup pg;

  PgExecutor(PlacementGroup pg) {
    this.pg = pg;
  }

  @Override
  public void execute(Runnable task) {
    pg.enqueue(task);
  }

  @Override
  public boolean inEventLoop(Thread thread) {
    return thread == Thread.currentThread() && pg.lock().isHeldByCurrentThread();
  }

  @Override
  public boolean isShuttingDown() {
    return false;
  }

  @Override
  public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
    return terminationFuture();
  }

  @Override
  public Future<?> terminationFuture() {
    return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
  }

  @Override
  @Deprecated
  public void shutdown() {
    // The op shard's workers stop with the engine, not per PG.
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
