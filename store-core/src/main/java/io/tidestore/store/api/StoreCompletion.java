package io.tidestore.store.api;

/**
 * Receives the outcome of one store operation, always on the shard's owner thread, exactly once:
 * {@code failure} is {@code null} on success (then {@code value} is the result, {@code null} for
 * operations without one), or the {@link StoreException} that explains the failure.
 *
 * <p>Metadata-only operations ({@code stat}, {@code getXattr}, {@code list}, {@code listHashRange})
 * and operations refused up front (bad arguments, read-only shard, no space) may complete before
 * the call that started them returns; everything else completes from a later {@code poll} of the
 * shard's I/O queue. The callback must not block.
 */
@FunctionalInterface
public interface StoreCompletion<T> {
  void complete(T value, StoreException failure);
}
