package io.tidestore.store.record;

/**
 * Metadata deltas, one after another after the record header. Each starts with a type byte;
 * integers little-endian; strings are UTF-8 with a u16 length.
 *
 * <pre>
 *  CREATE        1 | id u64 | pool u64 | nameLen u16 | name
 *  WRITE         2 | id u64 | firstBlock u32 | blocks u32 | endByte u64 | blocks x crc32c u32
 *                    (takes the next {@code blocks} data blocks of the record; size = max(size, endByte))
 *  TRUNCATE      3 | id u64 | size u64      (blocks at or past ceil(size/4096) are dropped)
 *  REMOVE        4 | id u64
 *  SET_XATTR     5 | id u64 | nameLen u16 | name | valueLen u32 | value
 *  REMOVE_XATTR  6 | id u64 | nameLen u16 | name
 *  RELOCATE      7 | id u64 | block u32 | oldLocation u32 | crc32c u32
 *                    (takes the next data block; applies only if the block still maps to
 *                     oldLocation, so a newer write always wins over the cleaner's copy)
 *  PUNCH         8 | id u64 | firstBlock u32 | blocks u32
 *                    (format version 2: the blocks become holes, reading as zeros; size kept)
 * </pre>
 */
public final class DeltaDescriptor {
  public static final byte CREATE = 1;
  public static final byte WRITE = 2;
  public static final byte TRUNCATE = 3;
  public static final byte REMOVE = 4;
  public static final byte SET_XATTR = 5;
  public static final byte REMOVE_XATTR = 6;
  public static final byte RELOCATE = 7;
  public static final byte PUNCH = 8;

  /** Bytes of a WRITE delta before its crc array. */
  public static final int WRITE_FIXED = 1 + 8 + 4 + 4 + 8;

  /** Bytes of a RELOCATE delta. */
  public static final int RELOCATE_LENGTH = 1 + 8 + 4 + 4 + 4;

  /** Bytes of a TRUNCATE delta. */
  public static final int TRUNCATE_LENGTH = 1 + 8 + 8;

  /** Bytes of a PUNCH delta. */
  public static final int PUNCH_LENGTH = 1 + 8 + 4 + 4;

  /** Bytes of a REMOVE delta. */
  public static final int REMOVE_LENGTH = 1 + 8;

  private DeltaDescriptor() {}
}
