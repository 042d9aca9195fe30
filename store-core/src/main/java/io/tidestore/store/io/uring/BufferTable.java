package io.tidestore.store.io.uring;

import io.tidestore.store.io.DirectIo;
import io.tidestore.store.io.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The memory regions registered with a ring as fixed buffers (IORING_REGISTER_BUFFERS): an I/O
 * whose buffer lies inside one goes out as READ_FIXED/WRITE_FIXED naming the region, and the kernel
 * skips pinning its pages per operation. A refused registration (ENOMEM under RLIMIT_MEMLOCK is the
 * usual cause) leaves no region registered and every buffer working unregistered. Owner thread
 * only.
 */
final class BufferTable {
  private static final System.Logger LOG = System.getLogger(BufferTable.class.getName());

  /** One registered buffer may not exceed 1 GiB (io_uring/rsrc.c, io_buffer_validate). */
  private static final long MAX_REGION_BYTES = 1L << 30;

  private final Ring ring;
  private long[] regionStart = new long[0];
  private long[] regionEnd = new long[0];

  BufferTable(Ring ring) {
    this.ring = ring;
  }

  /** Regions registered now. */
  int count() {
    return regionStart.length;
  }

  /**
   * Replaces the registered regions with {@code regions}; returns whether the kernel took them. The
   * ring must have no operation in flight.
   */
  boolean register(MemorySegment... regions) {
    for (MemorySegment region : regions) {
      DirectIo.checkBuffer(region, false);
      if (region.byteSize() > MAX_REGION_BYTES) {
        throw new IllegalArgumentException("a registered region is at most 1 GiB: " + region);
      }
    }
    if (regionStart.length > 0) {
      ring.sys.ioUringRegister(ring.state, ring.fd, IoUringAbi.IORING_UNREGISTER_BUFFERS, 0, 0);
      regionStart = new long[0];
      regionEnd = new long[0];
    }
    int rc;
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment iovecs = temp.allocate((long) ParamsLayout.IOVEC_SIZE * regions.length, 8);
      for (int i = 0; i < regions.length; i++) {
        iovecs.set(ValueLayout.JAVA_LONG, (long) i * ParamsLayout.IOVEC_SIZE, regions[i].address());
        iovecs.set(
            ValueLayout.JAVA_LONG, (long) i * ParamsLayout.IOVEC_SIZE + 8, regions[i].byteSize());
      }
      rc =
          ring.sys.ioUringRegister(
              ring.state,
              ring.fd,
              IoUringAbi.IORING_REGISTER_BUFFERS,
              iovecs.address(),
              regions.length);
    }
    if (rc < 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring buffer registration refused ({0}); I/O continues with unregistered buffers",
          Errno.name(-rc));
      return false;
    }
    long[] start = new long[regions.length];
    long[] end = new long[regions.length];
    for (int i = 0; i < regions.length; i++) {
      start[i] = regions[i].address();
      end[i] = start[i] + regions[i].byteSize();
    }
    regionStart = start;
    regionEnd = end;
    return true;
  }

  /** The registered region holding [address, address + length), or -1. */
  int indexOf(long address, long length) {
    long[] start = regionStart;
    for (int i = 0; i < start.length; i++) {
      if (address >= start[i] && address + length <= regionEnd[i]) {
        return i;
      }
    }
    return -1;
  }
}
