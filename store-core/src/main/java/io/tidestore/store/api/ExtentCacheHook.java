package io.tidestore.store.api;

import java.lang.foreign.MemorySegment;

/**
 * The seam between a shard and its extent cache (io.tidestore.store.cache). Blocks are 4 KiB and
 * keyed by (shard-local object id, block index within the object). Every method is called on the
 * shard's owner thread only, so an implementation needs no locks.
 *
 * <p>The shard calls:
 *
 * <ul>
 *   <li>{@link #lookup} on the read path before going to disk, for every block of the request;
 *   <li>{@link #insertRead} with a block it has just read from disk and verified (crc32c);
 *   <li>{@link #insertDurable} when a write is applied: its record is durable and every earlier
 *       record is applied (journal-sequence order), so the cache never holds a block that could be
 *       lost or be overtaken by an older write; for a large write ({@link #evictsForWrite} false),
 *       {@link #insertDurableIfFree} instead;
 *   <li>{@link #invalidate} when a truncate, punch or remove is applied, for the blocks it drops.
 * </ul>
 *
 * Segments passed in are only valid during the call: an implementation copies what it keeps. The
 * segment returned by {@link #lookup} must stay valid until the caller's next call into the hook.
 */
public interface ExtentCacheHook {
  /** A hook that caches nothing. */
  ExtentCacheHook NONE =
      new ExtentCacheHook() {
        @Override
        public MemorySegment lookup(long objectId, long blockIndex) {
          return null;
        }

        @Override
        public void insertRead(long objectId, long blockIndex, MemorySegment block) {}

        @Override
        public void insertDurable(long objectId, long blockIndex, MemorySegment block) {}

        @Override
        public void invalidate(long objectId, long fromBlockIndex, long toBlockIndex) {}
      };

  /** The cached 4 KiB block, or {@code null} on a miss. */
  MemorySegment lookup(long objectId, long blockIndex);

  /** A block read from disk whose crc32c matched. */
  void insertRead(long objectId, long blockIndex, MemorySegment block);

  /** A block of an applied (durable, in-order) write. */
  void insertDurable(long objectId, long blockIndex, MemorySegment block);

  /**
   * Whether the blocks of an applied write of {@code blocks} blocks may push cached blocks out to
   * enter the cache ({@link #insertDurable}); when not, they enter only free cache memory ({@link
   * #insertDurableIfFree}). True by default; the daemon's cache says no for large writes.
   */
  default boolean evictsForWrite(int blocks) {
    return true;
  }

  /**
   * A block of an applied write that may enter the cache only where memory is free: it never
   * evicts. Whatever the cache held for the block is dropped either way.
   */
  default void insertDurableIfFree(long objectId, long blockIndex, MemorySegment block) {
    insertDurable(objectId, blockIndex, block);
  }

  /**
   * Drops every cached block of the object in {@code [fromBlockIndex, toBlockIndex)}; {@code
   * toBlockIndex} may be {@link Long#MAX_VALUE}, to the object's end.
   */
  void invalidate(long objectId, long fromBlockIndex, long toBlockIndex);
}
