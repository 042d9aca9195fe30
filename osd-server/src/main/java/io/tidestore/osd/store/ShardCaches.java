package io.tidestore.osd.store;

import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.memory.MemoryBudget;

/**
 * How each shard's extent cache is made: the daemon's {@code --cache-size} split evenly over the
 * store's shards, one replacement policy, every byte reserved from the daemon's one memory budget
 * ({@code --memory-limit}), so exceeding it is a startup error rather than an OOM kill.
 *
 * @param perShardBytes cache bytes per shard (a multiple of 4096; 0 = no cache)
 * @param policy the replacement policy each cache starts with
 * @param budget the daemon's memory budget
 * @param writeMaxBytes the largest write whose blocks may evict to enter the cache once durable
 *     (larger ones enter only free cache memory)
 */
public record ShardCaches(
    long perShardBytes, PolicyConfig policy, MemoryBudget budget, long writeMaxBytes) {

  /** Caches whose shards cache the blocks of every durable write. */
  public ShardCaches(long perShardBytes, PolicyConfig policy, MemoryBudget budget) {
    this(perShardBytes, policy, budget, Long.MAX_VALUE);
  }

  /** {@link #writeMaxBytes} in whole blocks, as the shard's cache hook counts them. */
  int writeMaxBlocks() {
    return (int) Math.min(Integer.MAX_VALUE, writeMaxBytes / 4096);
  }

  /** Opens shard {@code shard}'s cache; call on the thread that owns the shard. */
  ExtentCache open(int shard) {
    return ExtentCache.open("extent cache of shard " + shard, perShardBytes, policy, budget);
  }

  boolean enabled() {
    return perShardBytes > 0;
  }
}
