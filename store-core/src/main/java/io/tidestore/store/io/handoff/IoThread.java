package io.tidestore.store.io.handoff;

import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * The thread an {@link IoThreadQueue}'s ring lives on: an event loop (in the daemon, one of the
 * classic engine's {@code io-N} Netty loops) that runs the tasks given to {@link #execute} one at a
 * time, in order, and can be asked to reap a queue's completions as they become ready. The ring is
 * created, used and closed only from tasks running here, so this thread is its owner.
 */
public interface IoThread extends Executor {
  /** Whether the calling thread is this I/O thread. */
  boolean inThread();

  /**
   * Called on this thread: from now on, whenever {@code ring} has completions ready, run its {@link
   * IoQueue#poll()} here (by watching its {@link IoQueue#completionFd()}, or through its completion
   * listener when it has none), until the returned handle is closed.
   *
   * @throws IOException the loop refused to watch the ring
   */
  Reaping reap(IoQueue ring) throws IOException;

  /** Stops the reaping {@link #reap} started; closed on the I/O thread, before the ring closes. */
  @FunctionalInterface
  interface Reaping extends AutoCloseable {
    @Override
    void close();
  }
}
