package io.tidestore.store.io;

/**
 * Thrown when preparing an operation would exceed {@link IoQueue#capacity()}; the caller keeps the
 * work queued and retries after completions were delivered.
 */
public final class IoQueueFullException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public IoQueueFullException(int capacity) {
    super("I/O queue full: " + capacity + " operations in flight");
  }
}
