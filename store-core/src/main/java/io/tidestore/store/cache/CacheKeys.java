package io.tidestore.store.cache;

/**
 * Packs a logical block address (object id, block index) into one non-negative {@code long}, so
 * keys are primitives on the hot path.
 *
 * <pre>
 *  63 62                                            14 13           0
 * +--+-----------------------------------------------+--------------+
 * | 0|            object id (49 bits)                | block (14)   |
 * +--+-----------------------------------------------+--------------+
 * </pre>
 *
 * An object is at most 64 MiB, so its 4 KiB blocks are numbered 0..16383 (14 bits); the store gives
 * each object a numeric id per shard. Keys are logical, so cleaner relocation never changes them.
 */
public final class CacheKeys {
  /** Block size the cache works in: 4 KiB, the O_DIRECT alignment. */
  public static final int BLOCK_SIZE = 4096;

  public static final int BLOCK_SHIFT = 12;
  public static final int BLOCK_BITS = 14;

  /** Blocks per object: 64 MiB / 4 KiB. */
  public static final int MAX_BLOCKS_PER_OBJECT = 1 << BLOCK_BITS;

  /** Largest object id that fits (2^49 - 1). */
  public static final long MAX_OBJECT_ID = (1L << (63 - BLOCK_BITS)) - 1;

  private CacheKeys() {}

  public static long key(long objectId, int block) {
    if (objectId < 0 || objectId > MAX_OBJECT_ID) {
      throw new IllegalArgumentException("object id out of range [0, 2^49): " + objectId);
    }
    if (block < 0 || block >= MAX_BLOCKS_PER_OBJECT) {
      throw new IllegalArgumentException("block out of range [0, 16384): " + block);
    }
    return (objectId << BLOCK_BITS) | block;
  }

  public static long objectId(long key) {
    return key >>> BLOCK_BITS;
  }

  public static int block(long key) {
    return (int) (key & (MAX_BLOCKS_PER_OBJECT - 1));
  }
}
