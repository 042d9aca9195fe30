package io.tidestore.store.io;

/**
 * Receives the outcome of one {@link IoQueue} operation, on the queue's owner thread. The {@code
 * tag} is the caller's, passed through untouched, so one completion object can serve many
 * operations without an allocation per operation.
 */
public interface IoCompletion {
  /** The operation succeeded; {@code result} is the byte count (0 for a sync). */
  void completed(long tag, int result);

  /** The operation failed; {@code error} carries errno and the operation. */
  void failed(long tag, IoOpException error);
}
