package io.tidestore.store.journal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Fixed-size, 4096-aligned native buffers reused across batches so the write path does not allocate
 * per operation. Owned by one shard; the memory lives in the shard's arena and goes when the arena
 * closes. Owner thread only.
 */
public final class BufferPool {
  private final Arena arena;
  private final long bufferBytes;
  private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();

  public BufferPool(Arena arena, long bufferBytes) {
    this.arena = arena;
    this.bufferBytes = bufferBytes;
  }

  public long bufferBytes() {
    return bufferBytes;
  }

  public MemorySegment take() {
    MemorySegment b = free.poll();
    return b != null ? b : arena.allocate(bufferBytes, 4096);
  }

  public void give(MemorySegment buffer) {
    free.push(buffer);
  }
}
