package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.tidestore.osd.nbd.BlockImage;
import io.tidestore.osd.store.StoreErrors;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import java.lang.foreign.MemorySegment;

/**
 * An image's reads and writes straight into the store ({@link PieceIo}): the store copies read
 * bytes directly into the caller's reply buffer (no intermediate buffer, no zeroing of bytes about
 * to be overwritten: only holes and the tail past an object's end are zeroed), and a request that
 * stays within one object, the common case, costs one completion object. Requests crossing object
 * boundaries fan out and join. One instance per connection, on its reactor thread (where {@link
 * PieceIo} completes too, so the join needs no atomics).
 */
final class ImageDataPath {
  private final ImageLayout layout;
  private final PieceTargets targets;
  private final PieceIo io;

  ImageDataPath(ImageLayout layout, PieceTargets targets) {
    this.layout = layout;
    this.targets = targets;
    this.io = targets.io();
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
    if (inObject + length <= layout.objectSize()) {
      io.write(targets.of(layout.objectNumber(offset)), inObject, data, new Join(done));
      return;
    }
    Join join = new Join(done);
    try {
      layout.forEachExtent(
          offset,
          length,
          (object, objectOffset, pieceLength, at) -> {
            join.left++;
            io.write(
                targets.of(object),
                objectOffset,
                data.retainedSlice(data.readerIndex() + (int) at, pieceLength),
                join);
          });
    } finally {
      data.release();
    }
    join.issued();
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
      finish(failure == null ? null : StoreErrors.toOp(failure));
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
          outcome = StoreErrors.toOp(failure);
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
