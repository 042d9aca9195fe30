package io.tidestore.osd.net;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon-wide limit on bytes held by incomplete inbound frames: object protocol frames and NBD
 * write payloads that are still arriving ({@code --max-inflight-frame-bytes}, docs/memory.md). A
 * decoder that learns from a header that more than {@link #THRESHOLD} bytes are coming reserves
 * them here before it buffers them; if that fails it stops reading the connection ({@link
 * ReadGate#BUDGET}) and registers a {@link Waiter}, which is run on its connection's event loop
 * when bytes are released. The reservation is given back when the frame is complete and handed on,
 * or when the connection goes away. Smaller frames never touch the budget.
 *
 * <p>One frame larger than the whole budget is admitted when nothing else is reserved, so every
 * frame the protocols allow can arrive, one at a time.
 *
 * <p><b>Threading:</b> thread-safe and lock-free; one CAS per reservation, one add per release.
 */
public final class InboundBudget {
  /** Frames up to this many bytes are buffered without a reservation. */
  public static final int THRESHOLD = 64 << 10;

  /** The default limit: 256 MiB. */
  public static final long DEFAULT_BYTES = 256L << 20;

  private final long limit;
  private final AtomicLong reserved = new AtomicLong();
  private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

  public InboundBudget(long limitBytes) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("in-flight frame budget must be > 0: " + limitBytes);
    }
    this.limit = limitBytes;
  }

  /** A budget that never refuses (clients, tools); it still counts. */
  public static InboundBudget unbounded() {
    return new InboundBudget(Long.MAX_VALUE);
  }

  /**
   * Reserves {@code bytes} if they fit, or if nothing is reserved at all (so a frame larger than
   * the budget can still arrive alone); false otherwise, reserving nothing.
   */
  public boolean tryReserve(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot reserve negative bytes: " + bytes);
    }
    while (true) {
      long current = reserved.get();
      long next = current + bytes;
      if (current != 0 && (next > limit || next < 0)) {
        return false;
      }
      if (reserved.compareAndSet(current, next)) {
        return true;
      }
    }
  }

  /** Gives back {@code bytes} reserved earlier and wakes every waiting connection to retry. */
  public void release(long bytes) {
    if (bytes <= 0) {
      return;
    }
    reserved.addAndGet(-bytes);
    Waiter w;
    while ((w = waiters.poll()) != null) {
      w.wake();
    }
  }

  /**
   * Runs {@code waiter} once after the next release. Register before retrying {@link #tryReserve}
   * so a release between the failed attempt and the registration is not missed.
   */
  public void await(Waiter waiter) {
    waiters.add(waiter);
  }

  /** Forgets {@code waiter} (its connection went away). */
  public void cancel(Waiter waiter) {
    waiters.remove(waiter);
  }

  /** Bytes reserved now (a gauge). */
  public long reservedBytes() {
    return reserved.get();
  }

  /** The limit in bytes. */
  public long limitBytes() {
    return limit;
  }

  /** Connections waiting for bytes to be released (a gauge). */
  public int waitingConnections() {
    return waiters.size();
  }

  /** A connection waiting for bytes: {@code task} runs on {@code executor} after a release. */
  public static final class Waiter {
    private final EventExecutor executor;
    private final Runnable task;

    public Waiter(EventExecutor executor, Runnable task) {
      this.executor = executor;
      this.task = task;
    }

    void wake() {
      try {
        executor.execute(task);
      } catch (RejectedExecutionException e) {
        // The loop is shutting down, and its connections with it.
      }
    }
  }
}
