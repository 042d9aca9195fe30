package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import java.lang.foreign.MemorySegment;

/**
 * An image's reads and writes straight into the store ({@link PieceIo}): the store copies read
 * bytes directly into the caller's reply buffer (no intermediate buffer, no zeroing of bytes about
 * to be overwritten: only holes and the tail past an object's end are zeroed), and a request that
 * stays within one object, the common case, costs one completion object. Requests crossing object
 * boundaries fan out and join. So does a write longer than the store's largest single write ({@link
 * PieceIo#maxWriteBytes}, under 4 MiB on small shards, less than NBD's 32 MiB maximum payload): it
 * goes in chunks of at most that, and completes once all are durable, which NBD allows (a write is
 * not atomic, only acknowledged once every byte is). One instance per connection, on its reactor
 * thread (where {@link PieceIo} completes too, so the join needs no atomics).
 */
final class ImageDataPath {
  private final ImageLayout layout;
  private final PieceTargets targets;
  private final PieceIo io;
  private final int maxWrite; // the store's largest single write
  private final int maxSpan; // the most blocks' bytes one write may touch

  ImageDataPath(ImageLayout layout, PieceTargets targets) {
    this.layout = layout;
    this.targets = targets;
    this.io = targets.io();
    this.maxWrite = io.maxWriteBytes();
    if (maxWrite <= 0) {
      throw new IllegalArgumentException("store accepts writes of " + maxWrite + " bytes");
    }
    // The store sizes a write's journal record by the blocks it touches, and its limit holds for
    // block-aligned writes: an unaligned one of maxWrite bytes touches one block more and never
    // fits a segment. So a write goes whole only when the blocks it touches fit the limit, and
    // chunks end on block boundaries.
    this.maxSpan = maxWrite >= ShardStore.BLOCK_SIZE ? maxWrite & -ShardStore.BLOCK_SIZE : maxWrite;
  }

  /** Bytes of the blocks a write of {@code length} at {@code objectOffset} touches. */
  private int span(int objectOffset, int length) {
    if (maxSpan < ShardStore.BLOCK_SIZE) {
      return length; // a limit below one block: count bytes only
    }
    int first = objectOffset & -ShardStore.BLOCK_SIZE;
    int end =
        (int) (((long) objectOffset + length + ShardStore.BLOCK_SIZE - 1) & -ShardStore.BLOCK_SIZE);
    return end - first;
  }

  void readInto(long offset, int length, ByteBuf into, BlockImage.Done done) {
    int base = into.writerIndex();
    MemorySegment window = MemorySegment.ofBuffer(into.nioBuffer(base, length));
    int inObject = layout.offsetInObject(offset);
    if (inObject + length <= layout.objectSize()) {
      io.read(
          targets.of(layout.objectNumber(offset)),
          inObject,
          window,
          new PieceRead(into, base, length, done));
      return;
    }
    Join join = new Join(done);
    layout.forEachExtent(
        offset,
        length,
        (object, objectOffset, pieceLength, at) -> {
          join.left++;
          io.read(
              targets.of(object),
              objectOffset,
              window.asSlice(at, pieceLength),
              new PieceRead(into, base + (int) at, pieceLength, join));
        });
    join.issued();
  }

  void write(long offset, ByteBuf data, BlockImage.Done done) {
    int length = data.readableBytes();
    int inObject = layout.offsetInObject(offset);
    if (inObject + length <= layout.objectSize() && span(inObject, length) <= maxSpan) {
      io.write(targets.of(layout.objectNumber(offset)), inObject, data, new Join(done));
      return;
    }
    // Pieces split at object boundaries and, within an object, into chunks of at most maxSpan
    // bytes of blocks, each ending on a block boundary (so only the first may start off one).
    Join join = new Join(done);
    try {
      int base = data.readerIndex();
      int objectSize = layout.objectSize();
      for (int at = 0; at < length; ) {
        long position = offset + at;
        int objectOffset = layout.offsetInObject(position);
        int chunkEnd =
            maxSpan < ShardStore.BLOCK_SIZE
                ? objectOffset + maxSpan
                : (objectOffset & -ShardStore.BLOCK_SIZE) + maxSpan;
        int piece =
            Math.min(Math.min(length - at, objectSize - objectOffset), chunkEnd - objectOffset);
        PieceIo.Target target = targets.of(layout.objectNumber(position));
        join.left++;
        io.write(target, objectOffset, data.retainedSlice(base + at, piece), join);
        at += piece;
      }
    } finally {
      data.release();
    }
    join.issued();
  }

  /**
   * Reads {@code [offset, offset + length)} and drops the bytes, so the store's caches hold them
   * (NBD_CMD_CACHE): one object at a time into one scratch buffer, so a large range costs one
   * object's worth of memory; {@code done} once the last piece is read.
   */
  void cache(long offset, long length, BlockImage.Done done) {
    int most = (int) Math.min(length, layout.objectSize());
    new CacheRun(offset, offset + length, ByteBufAllocator.DEFAULT.directBuffer(most, most), done)
        .next();
  }

  /** One {@link #cache} request: reads a piece, and the next when it completes. */
  private final class CacheRun implements BlockImage.Done {
    private final long end;
    private final ByteBuf scratch;
    private final BlockImage.Done done;
    private long at;

    CacheRun(long at, long end, ByteBuf scratch, BlockImage.Done done) {
      this.at = at;
      this.end = end;
      this.scratch = scratch;
      this.done = done;
    }

    void next() {
      if (at >= end) {
        scratch.release();
        done.done(null);
        return;
      }
      long from = at;
      int piece = (int) Math.min(end - at, layout.objectSize() - layout.offsetInObject(at));
      at += piece;
      readInto(from, piece, scratch, this);
    }

    @Override
    public void done(Throwable failure) {
      if (failure != null) {
        scratch.release();
        done.done(failure);
      } else {
        next();
      }
    }
  }

  /** Completes {@code done} once every piece did, with the first failure if any. */
  private static final class Join implements StoreCompletion<Void> {
    private final BlockImage.Done done;
    int left = 1; // 1 until every piece is issued; a lone piece's completion takes it to 0
    private Throwable first;

    Join(BlockImage.Done done) {
      this.done = done;
    }

    void issued() {
      finish(null);
    }

    @Override
    public void complete(Void value, StoreException failure) {
      finish(failure == null ? null : ObjectOpsException.from(failure));
    }

    void finish(Throwable failure) {
      if (failure != null && first == null) {
        first = failure;
      }
      if (--left == 0) {
        done.done(first);
      }
    }
  }

  /**
   * One object's piece of a read: a missing object is a hole and an object shorter than the piece
   * ends in one, so those bytes are zeroed here, the only zeroing on the read path.
   */
  private static final class PieceRead implements StoreCompletion<Integer> {
    private final ByteBuf into;
    private final int at;
    private final int length;
    private final BlockImage.Done done;
    private final Join join;

    PieceRead(ByteBuf into, int at, int length, BlockImage.Done done) {
      this(into, at, length, done, null);
    }

    PieceRead(ByteBuf into, int at, int length, Join join) {
      this(into, at, length, null, join);
    }

    private PieceRead(ByteBuf into, int at, int length, BlockImage.Done done, Join join) {
      this.into = into;
      this.at = at;
      this.length = length;
      this.done = done;
      this.join = join;
    }

    @Override
    public void complete(Integer count, StoreException failure) {
      Throwable outcome = null;
      if (failure != null) {
        if (failure.code() == StoreException.Code.NOT_FOUND) {
          into.setZero(at, length);
        } else {
          outcome = ObjectOpsException.from(failure);
        }
      } else if (count < length) {
        into.setZero(at + count, length - count);
      }
      if (join != null) {
        join.finish(outcome);
      } else {
        done.done(outcome);
      }
    }
  }
}
