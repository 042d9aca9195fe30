package io.tidestore.store.io.handoff;

import io.tidestore.store.io.IoQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A plain platform thread as an {@link IoThread} (store-core has no event loop of its own): it runs
 * tasks in order, and reaps what it is asked to reap. A queue without a completion fd (the
 * FileChannel backend, an {@link IoThreadQueue}) wakes it through its listener with one coalesced
 * poll task, as the daemon's loops are woken; a queue with one (io_uring) is reaped by waiting in
 * its {@link IoQueue#await} while it has operations in flight, a millisecond at a time so that
 * tasks queued meanwhile still run.
 */
final class TestIoThread implements IoThread, AutoCloseable {
  private static final long RING_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
  private final Thread thread;

  /** Rings reaped by waiting on them; this thread only. */
  private final List<IoQueue> awaited = new ArrayList<>();

  private volatile Throwable failure;
  private boolean stopped;

  TestIoThread(String name) {
    this.thread = Thread.ofPlatform().name(name).daemon().start(this::run);
  }

  private void run() {
    try {
      while (!stopped) {
        IoQueue busy = busyRing();
        Runnable task = busy == null ? tasks.take() : tasks.poll();
        if (task != null) {
          task.run();
        } else {
          busy.await(RING_WAIT_NANOS);
        }
      }
    } catch (Throwable t) {
      failure = t;
    }
  }

  private IoQueue busyRing() {
    for (IoQueue ring : awaited) {
      if (ring.inFlight() > 0) {
        return ring;
      }
    }
    return null;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  /** Runs {@code work} on this thread; its outcome arrives through the future. */
  <T> Future<T> submit(Callable<T> work) {
    FutureTask<T> task = new FutureTask<>(work);
    execute(task);
    return task;
  }

  @Override
  public boolean inThread() {
    return Thread.currentThread() == thread;
  }

  @Override
  public Reaping reap(IoQueue queue) {
    if (queue.completionFd() >= 0) {
      awaited.add(queue);
      return () -> awaited.remove(queue);
    }
    AtomicBoolean scheduled = new AtomicBoolean();
    Runnable pollTask =
        () -> {
          scheduled.set(false);
          queue.poll();
        };
    queue.setCompletionListener(
        () -> {
          if (scheduled.compareAndSet(false, true)) {
            execute(pollTask);
          }
        });
    return () -> queue.setCompletionListener(null);
  }

  /** Stops after the tasks queued so far; fails if the thread died of an exception. */
  @Override
  public void close() {
    execute(() -> stopped = true);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping " + thread.getName(), e);
    }
    if (thread.isAlive()) {
      throw new AssertionError(thread.getName() + " did not stop");
    }
    if (failure != null) {
      throw new AssertionError(thread.getName() + " failed", failure);
    }
  }
}
