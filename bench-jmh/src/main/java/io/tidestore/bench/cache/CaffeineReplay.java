package io.tidestore.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Caffeine (W-TinyLFU) as a trace-replay peer: bounded by entry count, maintenance run on the
 * caller's thread ({@code executor(Runnable::run)}) so the replay is deterministic and single
 * threaded like the extent cache's shard. A miss puts the block, as the extent cache admits it.
 */
final class CaffeineReplay {
  private final Cache<Long, Boolean> cache;
  private long accesses;
  private long hits;

  CaffeineReplay(long capacityBlocks) {
    this.cache = Caffeine.newBuilder().maximumSize(capacityBlocks).executor(Runnable::run).build();
  }

  void access(long block) {
    accesses++;
    Long key = block;
    if (cache.getIfPresent(key) != null) {
      hits++;
    } else {
      cache.put(key, Boolean.TRUE);
    }
  }

  CaffeineReplay replay(long[] trace) {
    for (long b : trace) {
      access(b);
    }
    return this;
  }

  double hitRatio() {
    return accesses == 0 ? 0.0 : (double) hits / accesses;
  }
}
