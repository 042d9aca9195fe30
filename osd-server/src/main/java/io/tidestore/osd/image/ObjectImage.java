package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * An image striped over store objects ({@link ImageLayout}): each request is split at object
 * boundaries and every piece goes to its object's shard, all pieces in flight at once: reads and
 * writes through {@link PieceIo} when the store offers it ({@link ImageDataPath}), everything else
 * through {@link ObjectOps}. Objects never written read back as zeros (a missing object is a hole),
 * so a fresh image needs no preallocation. Zeroing frees space ({@link ImageZeroing}): a TRIM that
 * covers a whole object removes it, whole blocks inside one are punched; which blocks hold data is
 * asked of the store ({@link ImageAllocation}).
 *
 * <p>Threading: as {@link BlockImage}: called on a reactor thread, completes on any. The store
 * acknowledges a write only once durable, so FUA needs nothing extra and FLUSH completes at once.
 */
final class ObjectImage implements BlockImage {
  private final ObjectOps ops;
  private final ImageLayout layout;
  private final String name;
  private final LiveSize size;
  private final boolean readOnly;
  private final PieceTargets targets; // null without a PieceIo
  private final ImageHoles holes; // null: blocks cannot be freed or asked about
  private final ImageDataPath dataPath; // null without a PieceIo: the future-based path
  private final ImageZeroing zeroing;

  /**
   * An image of a fixed {@code size}.
   *
   * @param pieces the data path's fast way into the store, or null to read and write through {@code
   *     ops}
   */
  ObjectImage(
      ObjectOps ops, PieceIo pieces, ImageLayout layout, String name, long size, boolean readOnly) {
    this(ops, pieces, layout, name, new LiveSize(size), readOnly);
  }

  /** An image whose size follows {@code size} (see {@link LiveSize}). */
  ObjectImage(
      ObjectOps ops,
      PieceIo pieces,
      ImageLayout layout,
      String name,
      LiveSize size,
      boolean readOnly) {
    this.ops = ops;
    this.layout = layout;
    this.name = name;
    this.size = size;
    this.readOnly = readOnly;
    this.targets =
        pieces != null ? new PieceTargets(pieces, layout, layout.objectCount(size.get())) : null;
    this.dataPath = targets != null ? new ImageDataPath(layout, targets) : null;
    this.holes = targets != null ? targets : ImageHoles.of(ops, layout);
    this.zeroing =
        new ImageZeroing(
            ops, layout, holes, pieces != null ? pieces.maxWriteBytes() : Integer.MAX_VALUE);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long size() {
    return size.get();
  }

  @Override
  public boolean readOnly() {
    return readOnly;
  }

  @Override
  public void readInto(long offset, int length, ByteBuf into, Done done) {
    if (dataPath != null) {
      dataPath.readInto(offset, length, into, done);
    } else {
      BlockImage.super.readInto(offset, length, into, done);
    }
  }

  @Override
  public void write(long offset, ByteBuf data, boolean fua, Done done) {
    if (dataPath != null) {
      dataPath.write(offset, data, done);
    } else {
      BlockImage.super.write(offset, data, fua, done);
    }
  }

  @Override
  public CompletionStage<ByteBuf> read(long offset, int length) {
    ByteBuf into = ByteBufAllocator.DEFAULT.directBuffer(length, length);
    into.setZero(0, length).writerIndex(length);
    StageJoin join = new StageJoin();
    layout.forEachExtent(
        offset,
        length,
        (object, objectOffset, pieceLength, at) ->
            join.add(
                ops.read(layout.dataObjectName(object), objectOffset, pieceLength)
                    .handle(
                        (data, failure) -> {
                          if (failure != null) {
                            if (ObjectOpsException.is(failure, Code.NOT_FOUND)) {
                              return null; // a hole: the zeros already there
                            }
                            throw new CompletionException(ObjectOpsException.unwrap(failure));
                          }
                          try {
                            // Short at the end of an object: the rest stays zero.
                            into.setBytes((int) at, data, data.readerIndex(), data.readableBytes());
                          } finally {
                            data.release();
                          }
                          return null;
                        })));
    return join.issued()
        .handle(
            (v, failure) -> {
              if (failure != null) {
                into.release();
                throw new CompletionException(ObjectOpsException.unwrap(failure));
              }
              return into;
            });
  }

  @Override
  public CompletionStage<Void> write(long offset, ByteBuf data, boolean fua) {
    StageJoin join = new StageJoin();
    try {
      layout.forEachExtent(
          offset,
          data.readableBytes(),
          (object, objectOffset, pieceLength, at) ->
              join.add(
                  ops.write(
                      layout.dataObjectName(object),
                      objectOffset,
                      data.retainedSlice(data.readerIndex() + (int) at, pieceLength))));
    } finally {
      data.release();
    }
    return join.issued();
  }

  @Override
  public CompletionStage<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Void> writeZeroes(long offset, long length, boolean fua, Zeroing how) {
    return zeroing.zero(offset, length, size.get(), how);
  }

  @Override
  public CompletionStage<Allocation> allocation(long offset, long length) {
    if (holes == null) {
      return BlockImage.super.allocation(offset, length);
    }
    return ImageAllocation.of(layout, holes, offset, length, size.get());
  }

  @Override
  public CompletionStage<Void> cache(long offset, long length) {
    if (dataPath == null || length == 0) {
      return BlockImage.super.cache(offset, length);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    dataPath.cache(
        offset,
        length,
        failure -> {
          if (failure == null) {
            done.complete(null);
          } else {
            done.completeExceptionally(failure);
          }
        });
    return done;
  }
}
