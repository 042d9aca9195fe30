package io.tidestore.store.shard;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.MemorySegment;

/**
 * One {@code read()} in progress: the disk runs it waits for, the first failure, and the caller's
 * destination. Completes once every run is done, so the destination is never written after the
 * completion. Once completed it goes back to its {@link ReadPath} for the next read ({@link
 * ReadPath#recycle}), so a read allocates none. Owner thread only.
 */
final class UserRead implements BlockRead.Done {
  private final ReadPath reads;
  private long offset;
  private int length;
  private MemorySegment into;
  private StoreCompletion<Integer> done;
  private int outstanding;
  private StoreException failure;

  UserRead(ReadPath reads) {
    this.reads = reads;
  }

  /** Starts a read of {@code length} bytes at {@code offset} into {@code into}; holds it once. */
  void start(long offset, int length, MemorySegment into, StoreCompletion<Integer> done) {
    this.offset = offset;
    this.length = length;
    this.into = into;
    this.done = done;
    this.outstanding = 1;
    this.failure = null;
  }

  void add(BlockRead read) {
    outstanding++;
    reads.start(read);
  }

  /** Copies the part of block {@code blockIndex} the request covers from {@code block}. */
  void copyBlock(long blockIndex, MemorySegment block, long blockOffset) {
    long start = blockIndex << Blocks.SHIFT;
    long from = Math.max(offset, start);
    long to = Math.min(offset + length, start + Blocks.SIZE);
    MemorySegment.copy(block, blockOffset + (from - start), into, from - offset, to - from);
  }

  /** Zero-fills the part of block {@code blockIndex} the request covers (a hole). */
  void zeroBlock(long blockIndex) {
    long start = blockIndex << Blocks.SHIFT;
    long from = Math.max(offset, start);
    long to = Math.min(offset + length, start + Blocks.SIZE);
    into.asSlice(from - offset, to - from).fill((byte) 0);
  }

  @Override
  public void done(BlockRead read, MemorySegment blocks, StoreException error) {
    if (error != null) {
      if (failure == null) {
        failure = error;
      }
    } else {
      for (int i = 0; i < read.count; i++) {
        MemorySegment block = blocks.asSlice((long) i * Blocks.SIZE, Blocks.SIZE);
        copyBlock(read.firstBlock + i, block, 0);
        // The request gets what was mapped when it was issued; the cache only gets blocks that
        // are still current, or a read racing an overwrite would cache the older block.
        if (reads.stillMapped(read.objectId, read.firstBlock + i, read.firstLocation + i)) {
          reads.context().cache.insertRead(read.objectId, read.firstBlock + i, block);
        }
      }
    }
    release();
  }

  /** Drops the issuing reference; completes when no run is outstanding. */
  void release() {
    if (--outstanding == 0) {
      StoreCompletion<Integer> d = done;
      StoreException f = failure;
      Integer n = BoxedLengths.of(length);
      done = null;
      into = null;
      failure = null;
      if (f != null) {
        d.complete(null, f);
      } else {
        d.complete(n, null);
      }
      reads.recycle(this);
    }
  }
}
