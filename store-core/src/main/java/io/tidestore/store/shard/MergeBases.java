package io.tidestore.store.shard;

import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The current content of a block that a partial write or a cutting truncate merges into: zeros, the
 * newest staged copy, the cache's copy, or (the read-modify-write case) a verified read from disk.
 * Owner thread only.
 */
final class MergeBases {
  /** Receives the base block (a heap copy) or the read's failure. */
  interface Done {
    void done(MemorySegment block, StoreException failure);
  }

  private final ShardContext ctx;
  private final ReadPath reads;
  private final MemorySegment zeroBlock;
  private int readsInFlight;

  MergeBases(ShardContext ctx, ReadPath reads, Arena arena) {
    this.ctx = ctx;
    this.reads = reads;
    this.zeroBlock = arena.allocate(Blocks.SIZE, Blocks.SIZE);
    this.zeroBlock.fill((byte) 0);
  }

  /** A block of zeros (never written to). */
  MemorySegment zeros() {
    return zeroBlock;
  }

  /** Whether no base read is in flight. */
  boolean idle() {
    return readsInFlight == 0;
  }

  /**
   * The current content of block {@code b} of {@code e} (staged as {@code s}) if it is known
   * without I/O: zeros past the staged size or in a hole, the newest staged copy, or a copy of the
   * cache's. Null means: read it ({@link #read}).
   */
  MemorySegment inMemory(ObjectEntry e, StagedObject s, int b) {
    if (!s.exists || ((long) b << Blocks.SHIFT) >= s.size) {
      return zeroBlock;
    }
    MemorySegment p = s.pendingBlock(b);
    if (p != null) {
      return p;
    }
    long entry = e.block(b);
    if (BlockEntry.isHole(entry) || ((long) b << Blocks.SHIFT) >= s.lowestCut()) {
      // A hole, or an applied block that a staged truncate or remove already cut off.
      return zeroBlock;
    }
    MemorySegment cached = ctx.cache.lookup(e.id, b);
    return cached != null ? heapCopy(cached) : null;
  }

  /** Reads block {@code b} of {@code e} from disk, crc-checked, and hands over a heap copy. */
  void read(ObjectEntry e, int b, Done done) {
    readsInFlight++;
    reads.readBlock(
        e,
        b,
        (read, blocks, failure) -> {
          readsInFlight--;
          done.done(blocks == null ? null : heapCopy(blocks), failure);
        });
  }

  /**
   * A base that outlives the current call: an in-memory base may be a slice of a batch buffer,
   * recycled once its batch applies, which can happen before a disk read or a wait for space ends.
   */
  MemorySegment stable(MemorySegment base) {
    return base == null || base.equals(zeroBlock) ? base : heapCopy(base);
  }

  static MemorySegment heapCopy(MemorySegment data) {
    return MemorySegment.ofArray(data.toArray(ValueLayout.JAVA_BYTE));
  }
}
