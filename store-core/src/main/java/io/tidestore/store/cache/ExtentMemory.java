package io.tidestore.store.cache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A cache shard's extent memory: one 4 KiB-aligned native allocation from its own {@link Arena}
 * (the single owner; {@link #close()} ends its lifetime), carved into extents by a {@link
 * BuddyAllocator}. The arena is shared rather than confined so that the FileChannel I/O fallback's
 * worker threads and a zero-copy send may touch the bytes; allocation bookkeeping stays on the
 * owner thread.
 *
 * <p>The memory is exposed as {@link #regions()} of at most 1 GiB each, the io_uring limit for one
 * registered (fixed) buffer, so a shard can register them with its {@code IoQueue} and read from
 * disk straight into a cache extent.
 */
final class ExtentMemory implements AutoCloseable {
  /** io_uring_register(IORING_REGISTER_BUFFERS) rejects buffers over 1 GiB (io_uring/rsrc.c). */
  static final long MAX_REGION_BYTES = 1L << 30;

  private final Arena arena;
  private final MemorySegment memory;
  private final BuddyAllocator buddy;
  private final MemorySegment[] regions;

  /**
   * One-block views of the memory, by page, made on first use and kept: the write path inserts each
   * durable block on its own, and a new view per insert would be an allocation per written block. A
   * reference per 4 KiB page of heap, the size of the slot table's own segment references.
   */
  private final MemorySegment[] pageViews;

  ExtentMemory(long bytes) {
    if (bytes < CacheKeys.BLOCK_SIZE || bytes % CacheKeys.BLOCK_SIZE != 0) {
      throw new IllegalArgumentException(
          "extent memory must be a positive multiple of 4096: " + bytes);
    }
    long pages = bytes >>> CacheKeys.BLOCK_SHIFT;
    if (pages > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("extent memory too large for one shard: " + bytes);
    }
    this.arena = Arena.ofShared();
    try {
      this.memory = arena.allocate(bytes, CacheKeys.BLOCK_SIZE);
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      throw e;
    }
    this.buddy = new BuddyAllocator((int) pages);
    this.pageViews = new MemorySegment[(int) pages];
    int n = (int) ((bytes + MAX_REGION_BYTES - 1) / MAX_REGION_BYTES);
    this.regions = new MemorySegment[n];
    for (int i = 0; i < n; i++) {
      long off = i * MAX_REGION_BYTES;
      regions[i] = memory.asSlice(off, Math.min(MAX_REGION_BYTES, bytes - off));
    }
  }

  long bytes() {
    return memory.byteSize();
  }

  MemorySegment[] regions() {
    return regions.clone();
  }

  /** First page of a fresh block for {@code blocks} pages, or {@link BuddyAllocator#NONE}. */
  int allocate(int blocks) {
    return buddy.allocate(BuddyAllocator.orderFor(blocks));
  }

  void free(int page) {
    buddy.free(page);
  }

  MemorySegment slice(int page, int blocks) {
    if (blocks == 1) {
      MemorySegment view = pageViews[page];
      if (view == null) {
        view = memory.asSlice((long) page << CacheKeys.BLOCK_SHIFT, CacheKeys.BLOCK_SIZE);
        pageViews[page] = view;
      }
      return view;
    }
    return memory.asSlice(
        (long) page << CacheKeys.BLOCK_SHIFT, (long) blocks << CacheKeys.BLOCK_SHIFT);
  }

  long allocatedBytes() {
    return (long) (buddy.pages() - buddy.freePages()) << CacheKeys.BLOCK_SHIFT;
  }

  boolean isFullyFree() {
    return buddy.isFullyFree();
  }

  boolean isAlive() {
    return arena.scope().isAlive();
  }

  @Override
  public void close() {
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }
}
