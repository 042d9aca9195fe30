package io.tidestore.store.owner;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The rule a single-owner object (a shard, its I/O queue, its extent cache) checks on every call:
 * "one thread at a time". Either one thread for the object's whole life ({@link #thread}: the
 * reactor engine, where the check is one reference comparison and nothing is locked), or whichever
 * thread holds a lock ({@link #lock}: the classic engine, where op workers and the commit thread
 * take turns on a shard under its lock, and the lock's release and acquire order their plain
 * accesses). A call that breaks the rule fails with {@link WrongThreadException} rather than
 * corrupting unsynchronized state.
 */
public sealed interface Owner permits Owner.OneThread, Owner.LockHolder {
  /** Whether the calling thread may use the owned object now. */
  boolean isCurrent();

  /** Who owns it, for messages: a thread's name, or the lock's. */
  String describe();

  /** Throws {@link WrongThreadException} naming {@code what} unless {@link #isCurrent()}. */
  default void check(String what) {
    if (!isCurrent()) {
      throw new WrongThreadException(
          what
              + " is owned by "
              + describe()
              + ", called from thread '"
              + Thread.currentThread().getName()
              + "'");
    }
  }

  /** Owned by {@code thread} for good. */
  static Owner thread(Thread thread) {
    return new OneThread(thread);
  }

  /** Owned by the calling thread for good. */
  static Owner currentThread() {
    return new OneThread(Thread.currentThread());
  }

  /** Owned by whichever thread holds {@code lock} ({@code name} says whose lock it is). */
  static Owner lock(ReentrantLock lock, String name) {
    return new LockHolder(lock, name);
  }

  /** One thread for good: the check is a reference comparison. */
  record OneThread(Thread thread) implements Owner {
    @Override
    public boolean isCurrent() {
      return Thread.currentThread() == thread;
    }

    @Override
    public String describe() {
      return "thread '" + thread.getName() + "'";
    }
  }

  /** The thread holding {@code lock} at the time of the call. */
  record LockHolder(ReentrantLock lock, String name) implements Owner {
    @Override
    public boolean isCurrent() {
      return lock.isHeldByCurrentThread();
    }

    @Override
    public String describe() {
      return "the holder of " + name;
    }
  }
}
