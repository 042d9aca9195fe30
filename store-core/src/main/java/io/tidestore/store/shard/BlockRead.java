package io.tidestore.store.shard;

import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * One disk read of a run of an object's blocks that sit next to each other in one segment. Every
 * block is checked against the crc32c its index entry held when the read was issued; a mismatch
 * fails the read with CORRUPT, so bad data is never served. Owner thread only.
 */
final class BlockRead implements IoCompletion {
  /** Receives the verified blocks (valid only during the call) or the failure. */
  interface Done {
    void done(BlockRead read, MemorySegment blocks, StoreException failure);
  }

  final long objectId;
  final int firstBlock;
  final int count;
  final int firstLocation;
  final int[] crcs;
  private final ReadPath reads;
  private final ShardContext ctx;
  private final Done done;
  private MemorySegment buffer;

  BlockRead(
      ReadPath reads,
      long objectId,
      int firstBlock,
      int count,
      int firstLocation,
      int[] crcs,
      Done done) {
    this.reads = reads;
    this.ctx = reads.context();
    this.objectId = objectId;
    this.firstBlock = firstBlock;
    this.count = count;
    this.firstLocation = firstLocation;
    this.crcs = crcs;
    this.done = done;
    if ((long) count * Blocks.SIZE > reads.pool().bufferBytes()) {
      // The read path splits runs at the pool's buffer size; a longer run is a bug.
      throw new IllegalArgumentException(
          "a run of " + count + " blocks exceeds the read buffer of " + reads.pool().bufferBytes());
    }
  }

  void start() {
    long bytes = (long) count * Blocks.SIZE;
    // ReadPath starts a read only when the pool has a free buffer.
    buffer = reads.pool().take();
    ctx.segments.readStarted(firstLocation);
    reads.started();
    ctx.queue.read(
        ctx.file,
        (long) Integer.toUnsignedLong(firstLocation) * Blocks.SIZE,
        buffer.asSlice(0, bytes),
        this,
        0);
  }

  @Override
  public void completed(long tag, int result) {
    StoreException failure = null;
    if (result < count * Blocks.SIZE) {
      failure =
          new StoreException(
              StoreException.Code.IO_ERROR,
              "short read of " + result + " bytes at block " + firstLocation + ctx.where());
    } else {
      CRC32C crc = ctx.crc;
      for (int i = 0; i < count && failure == null; i++) {
        int actual = Blocks.crc(crc, buffer, (long) i * Blocks.SIZE, Blocks.SIZE);
        if (actual != crcs[i]) {
          failure =
              new StoreException(
                  StoreException.Code.CORRUPT,
                  "crc32c mismatch in object "
                      + objectId
                      + " block "
                      + (firstBlock + i)
                      + " at location "
                      + Integer.toUnsignedLong(firstLocation + i)
                      + ctx.where()
                      + ": expected "
                      + Integer.toHexString(crcs[i])
                      + ", read "
                      + Integer.toHexString(actual));
          reads.corrupt(failure);
        }
      }
    }
    finish(failure == null ? buffer : null, failure);
  }

  @Override
  public void failed(long tag, IoOpException error) {
    finish(
        null,
        new StoreException(
            StoreException.Code.IO_ERROR, "read failed" + ctx.where() + ": " + error, error));
  }

  private void finish(MemorySegment blocks, StoreException failure) {
    ctx.segments.readDone(firstLocation);
    reads.finished();
    try {
      done.done(this, blocks, failure);
    } finally {
      reads.pool().give(buffer);
      buffer = null;
      reads.pump();
    }
  }
}
