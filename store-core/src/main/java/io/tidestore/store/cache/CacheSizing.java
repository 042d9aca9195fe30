package io.tidestore.store.cache;

/**
 * Splits the daemon's {@code --cache-size} evenly over its store shards, as SeaStore gives each
 * reactor its own cache (the seed reports run 2 GiB per reactor). Each share is rounded down to
 * whole 4 KiB blocks, so the shards together never exceed the configured size.
 */
public final class CacheSizing {
  private CacheSizing() {}

  /**
   * Bytes of cache per shard: 0 for no cache ({@code --cache-size 0}); throws if a cache would
   * leave a shard less than one block.
   */
  public static long perShardBytes(long cacheSizeBytes, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be >= 1: " + shards);
    }
    if (cacheSizeBytes < 0) {
      throw new IllegalArgumentException("--cache-size must be >= 0: " + cacheSizeBytes);
    }
    if (cacheSizeBytes == 0) {
      return 0;
    }
    long share = (cacheSizeBytes / shards) & ~(long) (CacheKeys.BLOCK_SIZE - 1);
    if (share < CacheKeys.BLOCK_SIZE) {
      throw new IllegalArgumentException(
          "--cache-size "
              + cacheSizeBytes
              + " over "
              + shards
              + " shards leaves less than one 4 KiB block per shard");
    }
    return share;
  }
}
