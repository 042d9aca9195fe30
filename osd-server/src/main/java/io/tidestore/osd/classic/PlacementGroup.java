package io.tidestore.osd.classic;

import io.tidestore.store.owner.Owner;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A placement group of the classic engine: the ops of one store shard (the store has no finer
 * object group, so a PG is a shard), their FIFO, and the PG lock, which is also the store shard's
 * lock: a worker runs an op of the PG holding it, the commit thread seals and reaps the shard
 * holding it, and the shard, its I/O queue and its extent cache accept exactly the thread holding
 * it ({@link #owner()}). Reached through its {@link #executor()}.
 */
public final class PlacementGroup {
  private final int id;
  private final OpShard shard;
  private final ReentrantLock lock = new ReentrantLock();
  private final Owner owner;
  private final PgExecutor executor;

  /** Ops waiting, oldest first; guarded by the op shard's queue lock. */
  final ArrayDeque<Runnable> pending = new ArrayDeque<>();

  /** Run after each op, outside the lock: wakes the commit thread for what the op staged. */
  private volatile Runnable afterOp = () -> {};

  PlacementGroup(int id, OpShard shard) {
    this.id = id;
    this.shard = shard;
    this.owner = Owner.lock(lock, "the lock of PG (store shard) " + id);
    this.executor = new PgExecutor(this);
  }

  /** The store shard this PG is. */
  public int id() {
    return id;
  }

  /** The op shard (queue) this PG's ops go to. */
  public int opShard() {
    return shard.index();
  }

  /** The PG's lock: the store shard's lock. */
  public ReentrantLock lock() {
    return lock;
  }

  /** The rule the store shard, its queue and its cache check: the holder of {@link #lock()}. */
  public Owner owner() {
    return owner;
  }

  /**
   * Runs tasks as ops of this PG, in order, on a worker holding the PG lock; {@code inEventLoop()}
   * is true for the thread holding it.
   */
  public PgExecutor executor() {
    return executor;
  }

  /** Sets what runs after each op of this PG (the commit thread's wake-up). */
  public void afterEachOp(Runnable hook) {
    this.afterOp = hook;
  }

  void enqueue(Runnable op) {
    shard.enqueue(this, op);
  }

  /** On a worker that took one of this PG's tokens: runs the PG's oldest op under the PG lock. */
  void runOldest(OpShard from) {
    lock.lock();
    try {
      Runnable op = from.takeOldest(this);
      if (op != null) {
        op.run();
      }
    } finally {
      lock.unlock();
      afterOp.run();
    }
  }
}
