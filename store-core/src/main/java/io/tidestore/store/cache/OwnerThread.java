package io.tidestore.store.cache;

/**
 * The thread a cache belongs to: the first one to make a data-path call (a shard may be opened on
 * the main thread and handed to its reactor). Any other thread gets a {@link WrongThreadException}
 * rather than silently corrupting the cache's unsynchronized tables. One reference comparison per
 * call once bound.
 */
final class OwnerThread {
  private final String what;
  private Thread owner;

  /** {@code what} names the owned thing in the refusal (e.g. "extent cache of shard 3"). */
  OwnerThread(String what) {
    this.what = what;
  }

  /** Binds the calling thread if none is bound yet; refuses any other. */
  void check() {
    Thread current = Thread.currentThread();
    if (!current.equals(owner)) {
      bind(current);
    }
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
