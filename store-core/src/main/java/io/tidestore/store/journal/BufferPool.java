package io.tidestore.store.journal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Fixed-size, 4096-aligned native buffers reused across operations so the I/O paths do not allocate
 * per operation. The first {@code initialCount} buffers are allocated (and, with a {@link
 * io.tidestore.store.memory.BudgetedArena}, reserved against {@code --memory-limit}) when the pool
 * is made, at mount; {@link #take()} grows the pool only when they are all out, which is where a
 * budgeted arena can refuse. Owned by one shard; the memory lives in the shard's arena and goes
 * when the arena closes. Owner thread only.
 */
public final class BufferPool {
  private final Arena arena;
  private final long bufferBytes;
  private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
  private int allocated;

  public BufferPool(Arena arena, long bufferBytes, int initialCount) {
    this.arena = arena;
    this.bufferBytes = bufferBytes;
    for (int i = 0; i < initialCount; i++) {
      free.push(newBuffer());
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
