package io.tidestore.store.record;

/**
 * Layout of a shard's superblock. Two copies live in blocks 0 and 1 of the shard's space; a write
 * goes to copy {@code generation % 2}, so a torn write leaves the other copy intact, and mount
 * takes the valid copy with the higher generation.
 *
 * <pre>
 *  offset size field
 *   0      4   magic 'TDSB'
 *   4      2   version
 *   6      2   reserved, zero
 *   8      4   shard
 *  12      4   shardCount
 *  16      8   shardBytes (the space's usable size)
 *  24      4   segmentBytes
 *  28      4   segmentCount
 *  32      8   firstSegmentOffset (bytes from the start of the space)
 *  40      8   generation (every superblock write adds one)
 *  48      8   epoch (every mount adds one; records carry it)
 *  56      8   storeId (random at mkfs; the same in every shard of a store)
 *  64     60   reserved, zero
 * 124      4   crc32c of bytes 0..123
 * </pre>
 */
public final class SuperblockDescriptor {
  public static final int MAGIC = 0x42534454; // "TDSB" little-endian

  /**
   * The store format written. 2: journal records may hold PUNCH deltas (record version 2). 3: index
   * checkpoints are written at checkpoint version 2 (stop-bit varints), which a build of store
   * format 2 would take for a corrupt checkpoint and replay without. A mount rewrites the
   * superblock at this version, so a store a newer build has mounted is refused by an older one
   * ("written by a newer Tidestore") rather than misread.
   */
  public static final short VERSION = 3;

  /**
   * The oldest store format this build mounts (1: before PUNCH; its records replay as they are; its
   * checkpoints, version 1, load as they are).
   */
  public static final short OLDEST_VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int SHARD_OFFSET = 8;
  public static final int SHARD_COUNT_OFFSET = 12;
  public static final int SHARD_BYTES_OFFSET = 16;
  public static final int SEGMENT_BYTES_OFFSET = 24;
  public static final int SEGMENT_COUNT_OFFSET = 28;
  public static final int FIRST_SEGMENT_OFFSET = 32;
  public static final int GENERATION_OFFSET = 40;
  public static final int EPOCH_OFFSET = 48;
  public static final int STORE_ID_OFFSET = 56;
  public static final int CRC_OFFSET = 124;
  public static final int LENGTH = 128;

  /** The superblock copies take blocks 0 and 1; segments start after them. */
  public static final int COPIES = 2;

  private SuperblockDescriptor() {}
}
