package io.tidestore.store.record;

import io.tidestore.store.api.ShardStore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The store's unit of I/O and checksumming: 4 KiB blocks (O_DIRECT alignment on every device we
 * target), and the little-endian unaligned layouts every on-disk structure uses.
 */
public final class Blocks {
  public static final int SIZE = ShardStore.BLOCK_SIZE;
  public static final int SHIFT = Integer.numberOfTrailingZeros(SIZE);

  public static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Zeros to copy from: a fill of a range would need a view of it, made per call. */
  private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[SIZE]);

  private Blocks() {}

  /** Zero-fills {@code length} bytes of {@code segment} at {@code offset}. */
  public static void zero(MemorySegment segment, long offset, long length) {
    for (long done = 0; done < length; done += SIZE) {
      MemorySegment.copy(ZEROS, 0, segment, offset + done, Math.min(SIZE, length - done));
    }
  }

  /** Bytes rounded up to whole blocks. */
  public static long roundUp(long bytes) {
    return (bytes + SIZE - 1) & ~(long) (SIZE - 1);
  }

  /** Number of blocks covering {@code bytes}. */
  public static long count(long bytes) {
    return (bytes + SIZE - 1) >>> SHIFT;
  }

  /** crc32c of {@code length} bytes at {@code offset}, with the JDK's intrinsic CRC32C. */
  public static int crc(CRC32C crc, MemorySegment segment, long offset, long length) {
    crc.reset();
    crc.update(segment.asSlice(offset, length).asByteBuffer());
    return (int) crc.getValue();
  }
}
