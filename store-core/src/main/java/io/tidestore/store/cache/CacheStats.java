package io.tidestore.store.cache;

/**
 * A shard cache's counters and gauges as plain getters, for the OSD's metrics. Counters only grow;
 * sizes are in bytes (blocks x 4096).
 *
 * <p><b>Threading:</b> the cache updates them on its owner thread with plain writes; another thread
 * (metrics) may read them at any time and sees recent, possibly slightly stale values, each one
 * untorn (64-bit HotSpot); there is no consistent snapshot across getters.
 */
public final class CacheStats {
  private final ExtentCache cache;

  // Written by the cache on its owner thread.
  long hits;
  long misses;
  long evictions;
  long publishes;
  long invalidations;
  long staleFills;
  long rejections;
  long policySwitches;
  long cachedBlocks;
  int pinnedExtents;

  CacheStats(ExtentCache cache) {
    this.cache = cache;
  }

  public long hits() {
    return hits;
  }

  public long misses() {
    return misses;
  }

  /** Hits / (hits + misses), 0 before any lookup. */
  public double hitRatio() {
    long h = hits;
    long total = h + misses;
    return total == 0 ? 0.0 : (double) h / total;
  }

  /** Extents the policy evicted to make room. */
  public long evictions() {
    return evictions;
  }

  /** Extents dropped by invalidate (overwrite, truncate, remove). */
  public long invalidations() {
    return invalidations;
  }

  /** Extents published into the cache. */
  public long insertions() {
    return publishes;
  }

  /** Publishes refused because the range was invalidated while the buffer filled. */
  public long staleFills() {
    return staleFills;
  }

  /** Allocations or publishes refused for lack of unpinned room. */
  public long rejections() {
    return rejections;
  }

  /** Bytes of data cached (visible to lookups). */
  public long cachedBytes() {
    return cachedBlocks << CacheKeys.BLOCK_SHIFT;
  }

  /** Bytes of extent memory in use, including buffers still filling and size-class rounding. */
  public long allocatedBytes() {
    return cache.allocatedBytes();
  }

  public long capacityBytes() {
    return cache.capacityBytes();
  }

  public int pinnedExtents() {
    return pinnedExtents;
  }

  /** 2Q's A1in in bytes; 0 under LRU. */
  public long a1inBytes() {
    return cache.policy().a1inBlocks() << CacheKeys.BLOCK_SHIFT;
  }

  /** 2Q's A1out ghosts, in bytes of the extents they remember (no memory held); 0 under LRU. */
  public long a1outBytes() {
    return cache.policy().a1outBlocks() << CacheKeys.BLOCK_SHIFT;
  }

  /** 2Q's Am in bytes; under LRU, the LRU list. */
  public long amBytes() {
    return cache.policy().amBlocks() << CacheKeys.BLOCK_SHIFT;
  }

  /** The policy in use: "lru" or "2q". */
  public String policy() {
    return cache.policy().kind().configName();
  }

  /** Runtime policy switches applied so far. */
  public long policySwitches() {
    return policySwitches;
  }
}
