package io.tidestore.store.checkpoint;

/**
 * Layout of an index checkpoint. A shard keeps two checkpoint slots (files {@code shard-N.ckpt.0}
 * and {@code .1}); checkpoint {@code g} goes to slot {@code g % 2}, so a torn write leaves the
 * previous one intact. Mount takes the valid one with the higher generation.
 *
 * <pre>
 *  header block (4096 bytes)
 *  offset size field
 *   0      4   magic 'TDCK'
 *   4      2   version
 *   6      2   reserved, zero
 *   8      4   shard
 *  12      4   bodyCrc: crc32c of the body
 *  16      8   generation
 *  24      8   lastSeq: every record up to this sequence is in the checkpoint
 *  32      8   epoch of record lastSeq's mount
 *  40      4   nextSegment: where the record lastSeq+1 goes (-1: not decided)
 *  44      4   reserved, zero
 *  48      8   nextOffset within that segment
 *  56      8   nextObjectId
 *  64      8   bodyLength in bytes
 *  72      8   objectCount
 *  80      8   storeId
 *  88     36   reserved, zero
 * 124      4   crc32c of bytes 0..123
 *
 *  body (from byte 4096), objectCount times; version 2 (v: a stop-bit varint, {@link StopBitBody}):
 *   id v | pool v | nameLen v | name | size v | slots v | slots x block | xattrCount v
 *   | xattrCount x (nameLen v | name | valueLen v | value)
 *   block: 0 for a hole, else zigzag(location - next) + 1 as v and crc32c u32, where next is the
 *   location after the previous mapped block of the object (0 before the first); slots ends at
 *   the last mapped block
 *
 *  version 1 (read only, {@link FixedBody}):
 *   id u64 | pool u64 | nameLen u16 | name | size u64 | slots u32 | slots x block entry u64
 *   | xattrCount u16 | xattrCount x (nameLen u16 | name | valueLen u32 | value)
 * </pre>
 *
 * Version 1 block entries are {@link io.tidestore.store.index.BlockEntry} values: (location + 1) <<
 * 32 | crc32c, 0 for a hole.
 */
public final class CheckpointDescriptor {
  public static final int MAGIC = 0x4b434454; // "TDCK" little-endian

  /** The version written: 2, stop-bit varints and run-relative block locations. */
  public static final short VERSION = 2;

  /** The oldest version read (1: fixed-width fields). */
  public static final short OLDEST_VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int SHARD_OFFSET = 8;
  public static final int BODY_CRC_OFFSET = 12;
  public static final int GENERATION_OFFSET = 16;
  public static final int LAST_SEQ_OFFSET = 24;
  public static final int EPOCH_OFFSET = 32;
  public static final int NEXT_SEGMENT_OFFSET = 40;
  public static final int NEXT_OFFSET_OFFSET = 48;
  public static final int NEXT_OBJECT_ID_OFFSET = 56;
  public static final int BODY_LENGTH_OFFSET = 64;
  public static final int OBJECT_COUNT_OFFSET = 72;
  public static final int STORE_ID_OFFSET = 80;
  public static final int CRC_OFFSET = 124;
  public static final int BODY_OFFSET = 4096;

  private CheckpointDescriptor() {}

  /** The slot file of checkpoint generation {@code generation} for {@code shard}. */
  public static String fileName(int shard, long generation) {
    return "shard-" + shard + ".ckpt." + (generation & 1);
  }
}
