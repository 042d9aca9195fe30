package io.tidestore.store.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * O_DIRECT's rules, shared by the backends so both refuse the same requests. Stateless; any thread.
 */
public final class DirectIo {
  private DirectIo() {}

  /**
   * Whether address, length and offset are multiples of {@code alignment} (open(2), "O_DIRECT":
   * misaligned direct I/O fails with EINVAL).
   */
  public static boolean aligned(long offset, MemorySegment buffer, int alignment) {
    long mask = alignment - 1L;
    return ((offset | buffer.address() | buffer.byteSize()) & mask) == 0;
  }

  /** Rejects what can never be valid I/O input, before anything is queued. */
  public static void checkBuffer(MemorySegment buffer, boolean intoBuffer) {
    if (!buffer.isNative()) {
      throw new IllegalArgumentException("direct I/O needs a native segment, got a heap one");
    }
    if (buffer.byteSize() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("one operation moves at most 2 GiB: " + buffer);
    }
    if (intoBuffer && buffer.isReadOnly()) {
      throw new IllegalArgumentException("buffer is read-only: " + buffer);
    }
  }

  /** S_IFMT and S_IFBLK from {@code <sys/stat.h>}. */
  private static final int S_IFMT = 0170000;

  private static final int S_IFBLK = 0060000;

  /** Whether {@code path} names a block device (its size is then the device's capacity). */
  public static boolean isBlockDevice(Path path) throws IOException {
    Object mode = Files.getAttribute(path, "unix:mode");
    return mode instanceof Integer m && (m & S_IFMT) == S_IFBLK;
  }
}
