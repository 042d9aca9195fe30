package io.tidestore.store.index;

/**
 * One 4 KiB block's index entry packed in a {@code long}: the high 32 bits are the block's location
 * plus one (its block number in the shard's space; 0 means a hole), the low 32 bits its crc32c.
 * Eight bytes per extent, which is what keeps the index far below 32 B per 4 KiB.
 */
public final class BlockEntry {
  /** The hole: never written, or dropped by truncate. */
  public static final long HOLE = 0L;

  private BlockEntry() {}

  public static long pack(int location, int crc) {
    return ((Integer.toUnsignedLong(location) + 1) << 32) | Integer.toUnsignedLong(crc);
  }

  public static boolean isHole(long entry) {
    return entry == HOLE;
  }

  public static int location(long entry) {
    return (int) ((entry >>> 32) - 1);
  }

  public static int crc(long entry) {
    return (int) entry;
  }
}
