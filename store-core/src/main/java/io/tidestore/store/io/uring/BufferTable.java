package io.tidestore.store.io.uring;

import io.tidestore.store.io.DirectIo;
import io.tidestore.store.io.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The memory regions registered with a ring as fixed buffers: an I/O whose buffer lies inside one
 * goes out as READ_FIXED/WRITE_FIXED naming the region's slot, and the kernel skips pinning its
 * pages per operation.
 *
 * <p>The table is sparse (IORING_REGISTER_BUFFERS2 with IORING_RSRC_REGISTER_SPARSE, Linux 5.19):
 * {@link #SLOTS} empty slots registered once, filled and emptied one at a time with
 * IORING_REGISTER_BUFFERS_UPDATE, which the kernel allows while operations are in flight (each
 * holds a reference to the buffer it uses). So memory made after the ring started, a shard's
 * journal buffers, can be registered too ({@link #add}). On a kernel without sparse tables it falls
 * back to one IORING_REGISTER_BUFFERS of the whole set ({@link #register}, no operation in flight)
 * and {@link #add} declines.
 *
 * <p>A refused registration (ENOMEM under RLIMIT_MEMLOCK is the usual cause) leaves that memory
 * working unregistered. A region must leave the table before its memory is freed: the kernel keeps
 * the old pages pinned, and a new allocation at the same address would otherwise be matched to
 * them. Owner thread only.
 */
final class BufferTable {
  private static final System.Logger LOG = System.getLogger(BufferTable.class.getName());

  /** One registered buffer may not exceed 1 GiB (io_uring/rsrc.c, io_buffer_validate). */
  private static final long MAX_REGION_BYTES = 1L << 30;

  /** Slots of the sparse table: a reactor's cache regions plus a journal region per shard. */
  static final int SLOTS = 256;

  /** struct io_uring_rsrc_register and struct io_uring_rsrc_update2: 32 bytes each. */
  private static final int RSRC_STRUCT_BYTES = 32;

  private final Ring ring;

  /** Per slot: the region's first and end address; end 0 = empty slot. */
  private final long[] regionStart = new long[SLOTS];

  private final long[] regionEnd = new long[SLOTS];

  /** Slots {@link #register} filled (replaced by its next call), as opposed to {@link #add}'s. */
  private final boolean[] fromRegister = new boolean[SLOTS];

  private int used;

  /** One past the highest filled slot: {@link #indexOf}, on every I/O, scans only up to it. */
  private int limit;

  /** 0 = not tried yet, 1 = the sparse table is registered, -1 = the kernel refused it. */
  private int sparse;

  BufferTable(Ring ring) {
    this.ring = ring;
  }

  /** Regions registered now. */
  int count() {
    return used;
  }

  /**
   * Replaces the regions an earlier call registered with {@code regions} (regions {@link #add}
   * registered stay); returns whether the kernel took every one. The ring must have no operation in
   * flight when the kernel has no sparse tables.
   */
  boolean register(MemorySegment... regions) {
    for (MemorySegment region : regions) {
      check(region);
    }
    if (!sparseTable()) {
      return registerWhole(regions);
    }
    for (int slot = 0; slot < SLOTS; slot++) {
      if (fromRegister[slot]) {
        remove(slot);
      }
    }
    boolean all = true;
    for (MemorySegment region : regions) {
      int slot = add(region);
      if (slot < 0) {
        all = false;
        break;
      }
      fromRegister[slot] = true;
    }
    return all;
  }

  /**
   * Registers one more region, in flight or not; returns its slot, or -1 when the kernel has no
   * sparse tables, every slot is taken, or the kernel refused it (logged).
   */
  int add(MemorySegment region) {
    check(region);
    if (!sparseTable()) {
      return -1;
    }
    int slot = 0;
    while (slot < SLOTS && regionEnd[slot] != 0) {
      slot++;
    }
    if (slot == SLOTS) {
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring buffer table full ({0} slots); {1} bytes stay unregistered",
          SLOTS,
          region.byteSize());
      return -1;
    }
    int rc = update(slot, region.address(), region.byteSize());
    if (rc < 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring buffer registration refused ({0}); {1} bytes stay unregistered",
          Errno.name(-rc),
          region.byteSize());
      return -1;
    }
    regionStart[slot] = region.address();
    regionEnd[slot] = region.address() + region.byteSize();
    used++;
    limit = Math.max(limit, slot + 1);
    return slot;
  }

  /** Empties {@code slot} (an I/O still using its buffer keeps it until it completes). */
  void remove(int slot) {
    if (slot < 0 || slot >= SLOTS || regionEnd[slot] == 0) {
      throw new IllegalArgumentException("no region registered in slot " + slot);
    }
    int rc = update(slot, 0, 0);
    if (rc < 0) {
      // Only a broken ring refuses to empty a slot; the address must still never match again.
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring refused to drop buffer slot {0} ({1})",
          slot,
          Errno.name(-rc));
    }
    regionStart[slot] = 0;
    regionEnd[slot] = 0;
    fromRegister[slot] = false;
    used--;
    while (limit > 0 && regionEnd[limit - 1] == 0) {
      limit--;
    }
  }

  /** The registered slot holding [address, address + length), or -1. */
  int indexOf(long address, long length) {
    for (int i = 0; i < limit; i++) {
      if (address >= regionStart[i] && address + length <= regionEnd[i]) {
        return i;
      }
    }
    return -1;
  }

  private static void check(MemorySegment region) {
    DirectIo.checkBuffer(region, false);
    if (region.byteSize() > MAX_REGION_BYTES) {
      throw new IllegalArgumentException("a registered region is at most 1 GiB: " + region);
    }
  }

  /** Registers the sparse table on first use; false when the kernel cannot. */
  private boolean sparseTable() {
    if (sparse == 0) {
      int rc;
      try (Arena temp = Arena.ofConfined()) {
        MemorySegment reg = temp.allocate(RSRC_STRUCT_BYTES, 8);
        reg.set(ValueLayout.JAVA_INT, 0, SLOTS); // nr
        reg.set(ValueLayout.JAVA_INT, 4, IoUringAbi.IORING_RSRC_REGISTER_SPARSE); // flags
        rc =
            ring.sys.ioUringRegister(
                ring.state,
                ring.fd,
                IoUringAbi.IORING_REGISTER_BUFFERS2,
                reg.address(),
                RSRC_STRUCT_BYTES);
      }
      sparse = rc < 0 ? -1 : 1;
      if (rc < 0) {
        LOG.log(
            System.Logger.Level.DEBUG,
            "no sparse io_uring buffer table ({0}): buffers registered once, as a whole",
            Errno.name(-rc));
      }
    }
    return sparse > 0;
  }

  /** IORING_REGISTER_BUFFERS_UPDATE of one slot ({@code address} 0 empties it). */
  private int update(int slot, long address, long length) {
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment iovec = temp.allocate(ParamsLayout.IOVEC_SIZE, 8);
      iovec.set(ValueLayout.JAVA_LONG, 0, address);
      iovec.set(ValueLayout.JAVA_LONG, 8, length);
      MemorySegment up = temp.allocate(RSRC_STRUCT_BYTES, 8);
      up.set(ValueLayout.JAVA_INT, 0, slot); // offset
      up.set(ValueLayout.JAVA_LONG, 8, iovec.address()); // data
      up.set(ValueLayout.JAVA_INT, 24, 1); // nr
      int rc =
          ring.sys.ioUringRegister(
              ring.state,
              ring.fd,
              IoUringAbi.IORING_REGISTER_BUFFERS_UPDATE,
              up.address(),
              RSRC_STRUCT_BYTES);
      return rc < 0 ? rc : 0;
    }
  }

  /** The fallback of kernels without sparse tables: the whole set in one registration. */
  private boolean registerWhole(MemorySegment... regions) {
    if (used > 0) {
      ring.sys.ioUringRegister(ring.state, ring.fd, IoUringAbi.IORING_UNREGISTER_BUFFERS, 0, 0);
      java.util.Arrays.fill(regionStart, 0);
      java.util.Arrays.fill(regionEnd, 0);
      used = 0;
      limit = 0;
    }
    if (regions.length > SLOTS) {
      throw new IllegalArgumentException("at most " + SLOTS + " regions: " + regions.length);
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
    for (int i = 0; i < regions.length; i++) {
      regionStart[i] = regions[i].address();
      regionEnd[i] = regionStart[i] + regions[i].byteSize();
    }
    used = regions.length;
    limit = regions.length;
    return true;
  }
}
