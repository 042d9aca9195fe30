package io.tidestore.store.io;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Fixed-size direct-I/O buffers carved from one native region, allocated once from one {@link
 * Arena}. The region is what a shard registers with its ring ({@link IoQueue#registerBuffers}), so
 * every buffer of the pool is a fixed buffer for READ_FIXED/WRITE_FIXED.
 *
 * <h2>Threading and lifetime</h2>
 *
 * The pool belongs to the thread that created it (a shard's reactor): {@link #acquire()}, {@link
 * #release} and {@link #close()} must be called there. The memory comes from a shared arena so that
 * the FileChannel backend's worker threads and the kernel can touch it, but only the owner hands
 * buffers out. Close the pool after the queues that use it are closed: closing frees the memory,
 * and refuses while buffers are still out, since one of them may be the target of an operation.
 */
public final class AlignedBufferPool implements AutoCloseable {
  /** O_DIRECT's alignment for addresses, lengths and offsets on 4 KiB-sector devices. */
  public static final int ALIGNMENT = 4096;

  private final Arena arena;
  private final MemorySegment region;
  private final MemorySegment[] buffers;
  private final int[] free;
  private final boolean[] out;
  private final int bufferSize;
  private final Thread owner;
  private int freeCount;
  private boolean closed;

  private AlignedBufferPool(int bufferSize, int count) {
    this.bufferSize = bufferSize;
    this.owner = Thread.currentThread();
    this.arena = Arena.ofShared();
    this.region = arena.allocate((long) bufferSize * count, ALIGNMENT);
    this.buffers = new MemorySegment[count];
    this.free = new int[count];
    this.out = new boolean[count];
    for (int i = 0; i < count; i++) {
      buffers[i] = region.asSlice((long) i * bufferSize, bufferSize);
      free[i] = count - 1 - i;
    }
    this.freeCount = count;
  }

  /**
   * Allocates {@code count} zeroed buffers of {@code bufferSize} bytes (a multiple of {@link
   * #ALIGNMENT}), owned by the calling thread.
   */
  public static AlignedBufferPool allocate(int bufferSize, int count) {
    if (bufferSize <= 0 || bufferSize % ALIGNMENT != 0) {
      throw new IllegalArgumentException(
          "bufferSize must be a positive multiple of " + ALIGNMENT + ", got " + bufferSize);
    }
    if (count <= 0 || (long) bufferSize * count > (1L << 30)) {
      // One registered buffer may not exceed 1 GiB (io_uring rsrc.c, io_buffer_validate).
      throw new IllegalArgumentException(
          "count must be positive and the pool at most 1 GiB, got " + count + " x " + bufferSize);
    }
    return new AlignedBufferPool(bufferSize, count);
  }

  /** The whole region, for {@link IoQueue#registerBuffers}. */
  public MemorySegment region() {
    return region;
  }

  public int bufferSize() {
    return bufferSize;
  }

  public int capacity() {
    return buffers.length;
  }

  public int available() {
    return freeCount;
  }

  /** A free buffer, or {@code null} when all are out (the caller waits for a release). */
  public MemorySegment acquire() {
    checkOwner();
    if (freeCount == 0) {
      return null;
    }
    int index = free[--freeCount];
    out[index] = true;
    return buffers[index];
  }

  /** Returns a buffer obtained from {@link #acquire()}; its operation must have completed. */
  public void release(MemorySegment buffer) {
    checkOwner();
    long delta = buffer.address() - region.address();
    int index = (int) (delta / bufferSize);
    if (delta < 0
        || delta % bufferSize != 0
        || index >= buffers.length
        || buffer.byteSize() != bufferSize) {
      throw new IllegalArgumentException("not a buffer of this pool: " + buffer);
    }
    if (!out[index]) {
      throw new IllegalStateException("buffer " + index + " released twice");
    }
    out[index] = false;
    free[freeCount++] = index;
  }

  /** Frees the region; every buffer must have been released. */
  @Override
  public void close() {
    checkOwner();
    if (closed) {
      return;
    }
    if (freeCount != buffers.length) {
      throw new IllegalStateException(
          (buffers.length - freeCount) + " buffers still out; release them before closing");
    }
    closed = true;
    arena.close();
  }

  private void checkOwner() {
    if (!owner.equals(Thread.currentThread())) {
      throw new WrongThreadException("buffer pool is owned by " + owner.getName());
    }
    if (closed) {
      throw new IllegalStateException("buffer pool is closed");
    }
  }
}
