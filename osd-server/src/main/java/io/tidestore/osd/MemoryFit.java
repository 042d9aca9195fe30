package io.tidestore.osd;

import io.tidestore.store.memory.MemoryBudget;
import java.io.IOException;

/**
 * The startup check of {@code --memory-limit}: the extent cache, every shard's fixed I/O buffers
 * and a first index step must fit before anything is allocated, or the daemon refuses to start with
 * what needs what, rather than failing halfway through mounting.
 */
final class MemoryFit {
  private MemoryFit() {}

  static void check(
      long limitBytes, long cacheBytes, int shards, long ioBytesPerShard, long indexBytesPerShard)
      throws IOException {
    long io = shards * ioBytesPerShard;
    long index = shards * indexBytesPerShard;
    long need = cacheBytes + io + index;
    if (need > limitBytes) {
      throw new IOException(
          "--memory-limit "
              + MemoryBudget.formatBytes(limitBytes)
              + " is below what the daemon needs at start: extent cache "
              + MemoryBudget.formatBytes(cacheBytes)
              + " + I/O buffers "
              + MemoryBudget.formatBytes(io)
              + " ("
              + shards
              + " shards x "
              + MemoryBudget.formatBytes(ioBytesPerShard)
              + ") + index "
              + MemoryBudget.formatBytes(index)
              + " ("
              + shards
              + " x "
              + MemoryBudget.formatBytes(indexBytesPerShard)
              + " to start) = "
              + MemoryBudget.formatBytes(need)
              + "; raise --memory-limit or lower --cache-size");
    }
  }
}
