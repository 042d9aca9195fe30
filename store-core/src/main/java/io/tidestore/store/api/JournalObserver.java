package io.tidestore.store.api;

/**
 * Hears about each journal record once it is durable, on the shard's owner thread, for metrics.
 * Must not allocate or block: it runs on the write path.
 */
@FunctionalInterface
public interface JournalObserver {
  /** Observes nothing. */
  JournalObserver NONE = (ops, bytes, writeNanos) -> {};

  /**
   * A record became durable.
   *
   * @param ops operations in the record (user mutations and cleaner relocations)
   * @param bytes record bytes written to the device (metadata and data blocks)
   * @param writeNanos from the submission of its writes to the completion of the last one
   */
  void recordWritten(int ops, long bytes, long writeNanos);
}
