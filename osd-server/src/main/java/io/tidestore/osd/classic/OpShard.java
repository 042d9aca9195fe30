package io.tidestore.osd.classic;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One shard of the sharded op queue (Ceph's {@code OSDShard} of {@code ShardedOpWQ}): the ops of
 * the placement groups hashed to it, served by {@code threads} worker threads {@code osd-op-S-T}.
 * Each enqueued op appends itself to its PG's FIFO and a token naming the PG to the shard's queue;
 * a worker takes a token, takes the PG's lock, and only then the oldest op of that PG, as Ceph's
 * {@code _process} takes the PG's first waiting op under the PG lock rather than the one it
 * dequeued. So two ops of one PG run one at a time and in the order they were enqueued, whichever
 * worker gets which token, while ops of other PGs run on the other workers.
 *
 * <p>Thread-safe. Lock order: a PG's lock, then this shard's queue lock (a worker holding a PG's
 * lock may enqueue ops); never the other way round.
 */
final class OpShard {
  private static final Logger LOG = Logger.getLogger(OpShard.class.getName());

  private final int index;
  private final ReentrantLock queueLock = new ReentrantLock();
  private final Condition nonEmpty = queueLock.newCondition();

  /** One token per enqueued op, naming its PG; guarded by {@link #queueLock}. */
  private final ArrayDeque<PlacementGroup> tokens = new ArrayDeque<>();

  private final Thread[] workers;
  private int idleWorkers; // guarded by queueLock: signal only when a worker waits
  private boolean stopping; // guarded by queueLock

  OpShard(int index, int threads) {
    this.index = index;
    this.workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      workers[t] = Thread.ofPlatform().name("osd-op-" + index + "-" + t).unstarted(this::work);
    }
  }

  void start() {
    for (Thread worker : workers) {
      worker.start();
    }
  }

  int index() {
    return index;
  }

  /** The worker threads' names, for the startup log. */
  String describe() {
    StringBuilder names = new StringBuilder();
    for (Thread worker : workers) {
      names.append(names.isEmpty() ? "" : " ").append(worker.getName());
    }
    return names.toString();
  }

  /**
   * Queues {@code op} behind every op of {@code pg} enqueued before it.
   *
   * @throws RejectedExecutionException once the shard is stopping
   */
  void enqueue(PlacementGroup pg, Runnable op) {
    queueLock.lock();
    try {
      if (stopping) {
        throw new RejectedExecutionException("op shard " + index + " stopped");
      }
      pg.pending.addLast(op);
      tokens.addLast(pg);
      if (idleWorkers > 0) {
        nonEmpty.signal();
      }
    } finally {
      queueLock.unlock();
    }
  }

  /** The oldest op of {@code pg}: called by a worker holding the PG's lock. */
  Runnable takeOldest(PlacementGroup pg) {
    queueLock.lock();
    try {
      return pg.pending.pollFirst();
    } finally {
      queueLock.unlock();
    }
  }

  private void work() {
    while (true) {
      PlacementGroup pg;
      queueLock.lock();
      try {
        while (tokens.isEmpty()) {
          if (stopping) {
            return;
          }
          idleWorkers++;
          try {
            nonEmpty.awaitUninterruptibly();
          } finally {
            idleWorkers--;
          }
        }
        pg = tokens.pollFirst();
      } finally {
        queueLock.unlock();
      }
      try {
        pg.runOldest(this);
      } catch (RuntimeException | Error e) {
        // An op that throws fails alone; the worker keeps serving the others.
        LOG.log(Level.SEVERE, Thread.currentThread().getName() + ": op failed", e);
      }
    }
  }

  /** Stops taking ops, lets the workers finish the queued ones, and waits for them. */
  void stop() {
    queueLock.lock();
    try {
      stopping = true;
      nonEmpty.signalAll();
    } finally {
      queueLock.unlock();
    }
    for (Thread worker : workers) {
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
