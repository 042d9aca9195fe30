package io.tidestore.store.journal;

import io.tidestore.store.io.IoQueue;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Fixed-size, 4096-aligned native buffers reused across operations so the I/O paths do not allocate
 * per operation. The first {@code initialCount} buffers are allocated (and, with a {@link
 * io.tidestore.store.memory.BudgetedArena}, reserved against {@code --memory-limit}) when the pool
 * is made, at mount; {@link #take()} grows the pool only when they are all out, which is where a
 * budgeted arena can refuse. Owned by one shard; the memory lives in the shard's arena and goes
 * when the arena closes. The buffers made at construction are one region, which {@link
 * #registerWith} can register with the shard's I/O queue as fixed buffers. Owner thread only.
 */
public final class BufferPool {
  private final Arena arena;
  private final long bufferBytes;
  private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
  private int allocated;

  /** The buffers made at construction, back to back; null when there were none. */
  private final MemorySegment initial;

  public BufferPool(Arena arena, long bufferBytes, int initialCount) {
    if (bufferBytes % 4096 != 0) {
      throw new IllegalArgumentException("buffers are whole 4 KiB blocks: " + bufferBytes);
    }
    this.arena = arena;
    this.bufferBytes = bufferBytes;
    this.initial = initialCount > 0 ? arena.allocate(bufferBytes * initialCount, 4096) : null;
    for (int i = initialCount - 1; i >= 0; i--) {
      free.push(initial.asSlice(i * bufferBytes, bufferBytes));
    }
    allocated = initialCount;
  }

  /**
   * Registers the buffers made at construction with {@code queue} as fixed buffers (io_uring skips
   * pinning their pages per write), until the pool's arena closes; buffers the pool grows later
   * stay unregistered. Does nothing where the queue cannot register ({@link
   * IoQueue#registerBuffer}).
   */
  public void registerWith(IoQueue queue) {
    if (initial == null) {
      return;
    }
    int handle = queue.registerBuffer(initial);
    if (handle >= 0) {
      // The registration ends when the arena closes, on the thread closing it (the shard's owner,
      // which is the queue's), before any other I/O of that thread could name this address again.
      MemorySegment unused = initial.reinterpret(arena, region -> queue.unregisterBuffer(handle));
    }
  }

  private MemorySegment newBuffer() {
    MemorySegment b = arena.allocate(bufferBytes, 4096);
    allocated++;
    return b;
  }

  public long bufferBytes() {
    return bufferBytes;
  }

  /** Buffers ready to take without allocating. */
  public int available() {
    return free.size();
  }

  /** Buffers this pool has allocated, free or out. */
  public int allocated() {
    return allocated;
  }

  /**
   * A free buffer, or a new one when none is free (may throw {@link
   * io.tidestore.store.memory.MemoryBudgetExceededException} from a budgeted arena).
   */
  public MemorySegment take() {
    MemorySegment b = free.poll();
    return b != null ? b : newBuffer();
  }

  public void give(MemorySegment buffer) {
    free.push(buffer);
  }
}
