package io.tidestore.osd.classic;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The classic engine's {@code commit} thread, BlueStore's {@code kv_sync_thread}: the op workers
 * only stage mutations into their shard's open journal batch; this thread, woken when something was
 * staged or a shard's I/O completed, takes each such shard's lock in turn and runs {@link
 * Unit#commit}: it delivers the shard's I/O completions (durable records apply and their writes are
 * acknowledged, through the finisher) and seals what the workers staged into one journal record,
 * submitted to the shard's I/O thread. So one record carries what several workers staged since the
 * last pass. Every shard also gets a pass every {@link #TICK_MILLIS} ms for its background work
 * (checkpoint retries, the cleaner, the scrub), as an idle reactor's ticks give.
 */
public final class CommitThread implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CommitThread.class.getName());

  /** How often every shard gets a pass even when nothing woke the thread. */
  static final long TICK_MILLIS = 20;

  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);

  /** What the commit thread does for one store shard, always under the shard's lock. */
  @FunctionalInterface
  public interface Unit {
    /** Delivers the shard's completions and seals and submits what was staged. */
    void commit(long nowNanos);
  }

  /** One registered shard: its lock, whether it needs a pass, and whether it closed. */
  public final class Slot {
    private final ReentrantLock lock;
    private final Unit unit;
    private volatile boolean dirty;
    private boolean closed; // guarded by lock

    private Slot(ReentrantLock lock, Unit unit) {
      this.lock = lock;
      this.unit = unit;
    }

    /**
     * Any thread: the shard has something for the commit thread (a staged mutation, a completion).
     * Cheap when the thread is awake: a volatile write and read.
     */
    public void wake() {
      dirty = true;
      if (sleeping) {
        LockSupport.unpark(thread);
      }
    }

    /** Under the shard's lock: the commit thread never touches the shard again. */
    public void close() {
      if (!lock.isHeldByCurrentThread()) {
        throw new IllegalStateException("close a commit slot under its shard's lock");
      }
      closed = true;
    }

    private boolean pass(long now, boolean tick) {
      if (!dirty && !tick) {
        return false;
      }
      dirty = false;
      lock.lock();
      try {
        if (!closed) {
          unit.commit(now);
        }
      } catch (RuntimeException e) {
        LOG.log(Level.SEVERE, "commit pass failed", e);
      } finally {
        lock.unlock();
      }
      return true;
    }
  }

  private final Thread thread;
  private volatile Slot[] slots = new Slot[0];
  private volatile boolean sleeping;
  private volatile boolean stopped;
  private long passes;

  private CommitThread() {
    this.thread = Thread.ofPlatform().name("commit").unstarted(this::run);
  }

  /** Starts the thread named {@code commit}. */
  public static CommitThread start() {
    CommitThread commit = new CommitThread();
    commit.thread.start();
    return commit;
  }

  /** Whether the calling thread is the commit thread. */
  public boolean isCurrent() {
    return Thread.currentThread() == thread;
  }

  /** The thread's name, for the startup log. */
  public String describe() {
    return thread.getName();
  }

  /** Adds a shard the thread serves from now on, under {@code lock}. */
  public synchronized Slot register(ReentrantLock lock, Unit unit) {
    Slot slot = new Slot(lock, unit);
    Slot[] grown = Arrays.copyOf(slots, slots.length + 1);
    grown[slots.length] = slot;
    slots = grown;
    slot.wake();
    return slot;
  }

  private void run() {
    long lastTick = System.nanoTime();
    while (!stopped) {
      long now = System.nanoTime();
      boolean tick = now - lastTick >= TICK_NANOS;
      if (tick) {
        lastTick = now;
      }
      boolean worked = false;
      for (Slot slot : slots) {
        worked |= slot.pass(now, tick);
      }
      passes++;
      if (!worked) {
        sleep(lastTick + TICK_NANOS - System.nanoTime());
      }
    }
  }

  /** Parks until a slot wakes the thread or {@code nanos} pass; never misses a wake-up. */
  private void sleep(long nanos) {
    if (nanos <= 0) {
      return;
    }
    sleeping = true;
    try {
      // sleeping is published before the check, so a wake() after it sees it and unparks us.
      for (Slot slot : slots) {
        if (slot.dirty) {
          return;
        }
      }
      LockSupport.parkNanos(this, nanos);
    } finally {
      sleeping = false;
    }
  }

  /** Passes made so far (each over every shard that needed one). */
  long passes() {
    return passes;
  }

  /** Stops the thread after its current pass; close the shards first. */
  @Override
  public void close() {
    stopped = true;
    LockSupport.unpark(thread);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
