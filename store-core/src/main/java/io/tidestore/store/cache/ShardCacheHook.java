package io.tidestore.store.cache;

import io.tidestore.store.api.ExtentCacheHook;
import java.lang.foreign.MemorySegment;

/**
 * Connects a shard to its {@link ExtentCache} through the store's {@link ExtentCacheHook}: blocks
 * of applied writes and verified reads enter the cache one 4 KiB block at a time, truncates and
 * removes drop what they cut off.
 *
 * <p>Owner thread only, like the shard and the cache. An applied write first drops whatever the
 * cache holds for its block, so the cache can never serve a block older than the newest applied
 * write; a read-filled block is only inserted where nothing is cached yet, so a read that finishes
 * after a write to the same block cannot replace the write's copy.
 */
public final class ShardCacheHook implements ExtentCacheHook {
  private static final long BLOCK = 4096;

  /**
   * Writes of every size enter the cache: {@link #ShardCacheHook(ExtentCache, int)} without a cap.
   */
  public static final int CACHE_ALL_WRITES = Integer.MAX_VALUE;

  private final ExtentCache cache;
  private final int maxWriteBlocks;

  /** A hook that caches the blocks of every applied write. */
  public ShardCacheHook(ExtentCache cache) {
    this(cache, CACHE_ALL_WRITES);
  }

  /**
   * A hook whose applied writes of at most {@code maxWriteBlocks} blocks enter the cache as reads
   * do, evicting by the policy; a larger write's blocks enter only free cache memory, else they
   * only drop what the cache held for them. Evicting for a large write costs the reactor more than
   * the write's own record copy (the copy into cold cache memory, the policy's eviction), and a
   * large sequential write (an image copy, a backup) would push out what readers use.
   */
  public ShardCacheHook(ExtentCache cache, int maxWriteBlocks) {
    if (maxWriteBlocks < 0) {
      throw new IllegalArgumentException("maxWriteBlocks must be >= 0: " + maxWriteBlocks);
    }
    this.cache = cache;
    this.maxWriteBlocks = maxWriteBlocks;
  }

  public ExtentCache cache() {
    return cache;
  }

  @Override
  public MemorySegment lookup(long objectId, long blockIndex) {
    long handle = cache.lookup(objectId, (int) blockIndex);
    if (handle == ExtentCache.MISS) {
      return null;
    }
    long within = blockIndex - cache.firstBlock(handle);
    MemorySegment extent = cache.segment(handle);
    // A one-block extent is the block itself: no view of it to make per lookup.
    return extent.byteSize() == BLOCK ? extent : extent.asSlice(within * BLOCK, BLOCK);
  }

  @Override
  public void insertRead(long objectId, long blockIndex, MemorySegment block) {
    if (cache.contains(objectId, (int) blockIndex)) {
      return;
    }
    insert(objectId, blockIndex, block);
  }

  @Override
  public boolean evictsForWrite(int blocks) {
    return blocks <= maxWriteBlocks;
  }

  @Override
  public void insertDurableIfFree(long objectId, long blockIndex, MemorySegment block) {
    int b = (int) blockIndex;
    cache.invalidate(objectId, b, b + 1);
    long handle = cache.allocateIfFree(objectId, b, 1);
    if (handle == ExtentCache.NO_SPACE) {
      return; // the cache is full: a large write does not push out what readers use
    }
    MemorySegment.copy(block, 0, cache.segment(handle), 0, BLOCK);
    cache.publish(handle);
  }

  @Override
  public void insertDurable(long objectId, long blockIndex, MemorySegment block) {
    int b = (int) blockIndex;
    cache.invalidate(objectId, b, b + 1);
    insert(objectId, blockIndex, block);
  }

  private void insert(long objectId, long blockIndex, MemorySegment block) {
    long handle = cache.allocate(objectId, (int) blockIndex, 1);
    if (handle == ExtentCache.NO_SPACE) {
      return; // everything pinned: serve from disk rather than wait
    }
    MemorySegment.copy(block, 0, cache.segment(handle), 0, BLOCK);
    cache.publish(handle);
  }

  @Override
  public void invalidate(long objectId, long fromBlockIndex, long toBlockIndex) {
    int to = (int) Math.min(toBlockIndex, CacheKeys.MAX_BLOCKS_PER_OBJECT);
    int from = (int) Math.min(fromBlockIndex, to);
    cache.invalidate(objectId, from, to);
  }
}
