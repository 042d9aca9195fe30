/**
 * The extent cache (docs/extent-cache.md): each shard's off-heap cache of extents ({@link
 * io.tidestore.store.cache.ExtentCache} and its package-private parts: memory and buddy allocator,
 * extent slots, block index, pending policy switches), the replacement policies behind {@link
 * io.tidestore.store.cache.ReplacementPolicy} (LRU, 2Q), how the cache is sized and configured
 * ({@link io.tidestore.store.cache.CacheSizing}, {@link io.tidestore.store.cache.PolicyConfig}),
 * its counters ({@link io.tidestore.store.cache.CacheStats}) and its connection to a shard ({@link
 * io.tidestore.store.cache.ShardCacheHook}).
 *
 * <p>May depend on: {@code store.memory} (the budget its capacity is reserved from), {@code
 * store.owner} (who may call it) and, for {@code ShardCacheHook} only, {@code store.api}'s {@code
 * ExtentCacheHook}, the seam a shard calls (the shard never depends on this package). Not on the
 * I/O layer: a shard registers the cache's regions with its queue itself.
 */
package io.tidestore.store.cache;
