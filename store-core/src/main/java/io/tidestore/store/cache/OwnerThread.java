package io.tidestore.store.cache;

import io.tidestore.store.owner.Owner;

/**
 * The thread a cache belongs to: the first one to make a data-path call (a shard may be opened on
 * the main thread and handed to its reactor), or, once {@link #bind(Owner)} gave it a rule, whoever
 * that rule admits (the classic engine: the holder of the shard's lock). Any other thread gets a
 * {@link WrongThreadException} rather than silently corrupting the cache's unsynchronized tables.
 * One reference comparison per call once bound to a thread.
 */
final class OwnerThread {
  private final String what;
  private Thread owner;
  private Owner rule;

  /** {@code what} names the owned thing in the refusal (e.g. "extent cache of shard 3"). */
  OwnerThread(String what) {
    this.what = what;
  }

  /** Binds the calling thread if none is bound yet; refuses any other. */
  void check() {
    Thread current = Thread.currentThread();
    if (!current.equals(owner)) {
      if (rule != null) {
        rule.check(what);
        return;
      }
      bind(current);
    }
  }

  /** From now on the cache follows {@code rule}; before its first data-path call only. */
  void bind(Owner rule) {
    if (owner != null) {
      throw new IllegalStateException(what + " is already bound to thread " + owner.getName());
    }
    this.rule = rule;
  }

  private void bind(Thread current) {
    if (owner != null) {
      throw new WrongThreadException(
          what
              + " belongs to thread '"
              + owner.getName()
              + "', called from '"
              + current.getName()
              + "'");
    }
    owner = current;
  }
}
