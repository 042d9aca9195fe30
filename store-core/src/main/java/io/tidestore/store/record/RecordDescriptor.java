package io.tidestore.store.record;

/**
 * Layout of a journal record: a 64-byte header, the metadata deltas right after it, padded to a
 * whole block, then the data blocks the deltas refer to, in order.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      magic 'TDRC' (0)                         |
 *  +-------------------------------+-------------------------------+
 *  |          version (4)          |           flags (6)           |
 *  +-------------------------------+-------------------------------+
 *  |                          shard (8)                            |
 *  +---------------------------------------------------------------+
 *  |                metaLength: delta bytes (12)                   |
 *  +---------------------------------------------------------------+
 *  |                    sequence number (16)                       |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  epoch: mount count (24)                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     dataBlocks (32)                           |
 *  +---------------------------------------------------------------+
 *  |                     deltaCount (36)                           |
 *  +---------------------------------------------------------------+
 *  |          metaBlocks: header + deltas in blocks (40)           |
 *  +---------------------------------------------------------------+
 *  |          storeId (44, format 2; zero in format 1)             |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (52..59)                   |
 *  +---------------------------------------------------------------+
 *  |   crc32c over bytes 0..59 and the metaLength delta bytes (60) |
 *  +---------------------------------------------------------------+
 *  |   deltas (64 .. 64+metaLength), zero padding to a block       |
 *  +---------------------------------------------------------------+
 *  |   dataBlocks x 4096 bytes; each block's crc32c is in a delta  |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * All integers are little-endian. A record never spans two segments. A record is valid only when
 * its header crc and every data block crc match; the sequence number of the record that follows is
 * always this one's plus one, and its epoch is never lower.
 */
public final class RecordDescriptor {
  public static final int MAGIC = 0x43524454; // "TDRC" little-endian

  /**
   * The record format written. Version 2 adds the PUNCH delta and the writing store's id in the
   * header; version 1 records (no PUNCH, no id) are read as they are, so a store written by an
   * older build replays unchanged.
   */
  public static final short VERSION = 2;

  /** The oldest record format this build reads. */
  public static final short OLDEST_VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int FLAGS_OFFSET = 6;
  public static final int SHARD_OFFSET = 8;
  public static final int META_LENGTH_OFFSET = 12;
  public static final int SEQ_OFFSET = 16;
  public static final int EPOCH_OFFSET = 24;
  public static final int DATA_BLOCKS_OFFSET = 32;
  public static final int DELTA_COUNT_OFFSET = 36;
  public static final int META_BLOCKS_OFFSET = 40;
  public static final int STORE_ID_OFFSET = 44;
  public static final int CRC_OFFSET = 60;
  public static final int HEADER_LENGTH = 64;

  private RecordDescriptor() {}

  /** Blocks taken by the header and {@code metaLength} delta bytes. */
  public static int metaBlocks(int metaLength) {
    return (int) Blocks.count(HEADER_LENGTH + (long) metaLength);
  }
}
