package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.ShardStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An image striped over store objects ({@link ImageLayout}): each request is split at object
 * boundaries and every piece goes to its object's shard, all pieces in flight at once: reads and
 * writes through {@link PieceIo} when the store offers it ({@link ImageDataPath}), everything else
 * through {@link ObjectOps}. Objects never written read back as zeros (a missing object is a hole),
 * so a fresh image needs no preallocation; a TRIM that covers a whole object removes it.
 *
 * <p>Threading: as {@link BlockImage}: called on a reactor thread, completes on any. The store
 * acknowledges a write only once durable, so FUA needs nothing extra and FLUSH completes at once.
 */
final class ObjectImage implements BlockImage {
  /** Zeros for WRITE_ZEROES and partial TRIMs; only ever read (the store copies what it writes). */
  private static final byte[] ZEROS = new byte[ImageLayout.DEFAULT_OBJECT_SIZE];

  private final ObjectOps ops;
  private final ImageLayout layout;
  private final String name;
  private final LiveSize size;
  private final boolean readOnly;
  private final ImageDataPath dataPath; // null without a PieceIo: the future-based path
  private final int maxWrite; // the most one store write may carry

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
    if (layout.objectSize() > ZEROS.length) {
      throw new IllegalArgumentException("object size above " + ZEROS.length);
    }
    this.ops = ops;
    this.layout = layout;
    this.name = name;
    this.size = size;
    this.readOnly = readOnly;
    this.maxWrite = pieces != null ? pieces.maxWriteBytes() : Integer.MAX_VALUE;
    this.dataPath =
        pieces != null
            ? new ImageDataPath(
                layout, new PieceTargets(pieces, layout, layout.objectCount(size.get())))
            : null;
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

  /** Completes once every piece did; the first failure fails it. */
  private static final class Join {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final AtomicInteger left = new AtomicInteger(1); // 1 until every piece is issued

    void add(CompletionStage<?> piece) {
      left.incrementAndGet();
      piece.whenComplete((v, e) -> finish(e));
    }

    void issued() {
      finish(null);
    }

    private void finish(Throwable failure) {
      if (failure != null) {
        done.completeExceptionally(ObjectOpsException.unwrap(failure));
      } else if (left.decrementAndGet() == 0) {
        done.complete(null);
      }
    }
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
    Join join = new Join();
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
    join.issued();
    return join.done.handle(
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
    Join join = new Join();
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
    join.issued();
    return join.done;
  }

  @Override
  public CompletionStage<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Void> trim(long offset, long length, boolean fua) {
    Join join = new Join();
    layout.forEachExtent(
        offset,
        length,
        (object, objectOffset, pieceLength, at) -> {
          String objectName = layout.dataObjectName(object);
          if (pieceLength == layout.objectSize()) {
            join.add(
                ops.remove(objectName)
                    .exceptionally(
                        failure -> {
                          if (ObjectOpsException.is(failure, Code.NOT_FOUND)) {
                            return null; // already a hole
                          }
                          throw new CompletionException(ObjectOpsException.unwrap(failure));
                        }));
          } else {
            writeZeros(join, objectName, objectOffset, pieceLength);
          }
        });
    join.issued();
    return join.done;
  }

  @Override
  public CompletionStage<Void> writeZeroes(long offset, long length, boolean fua) {
    Join join = new Join();
    layout.forEachExtent(
        offset,
        length,
        (object, objectOffset, pieceLength, at) ->
            writeZeros(join, layout.dataObjectName(object), objectOffset, pieceLength));
    join.issued();
    return join.done;
  }

  /**
   * Zeros {@code length} bytes of one object in writes the store accepts: each touches at most
   * {@code maxWriteBytes / 4 KiB} blocks (the store counts blocks touched, so chunks end on block
   * boundaries), which on small shards is less than an object.
   */
  private void writeZeros(Join join, String objectName, int objectOffset, int length) {
    int maxBlocks = Math.max(1, maxWrite / ShardStore.BLOCK_SIZE);
    int end = objectOffset + length;
    for (int start = objectOffset; start < end; ) {
      int chunkEnd =
          (int)
              Math.min(
                  end, ((long) start / ShardStore.BLOCK_SIZE + maxBlocks) * ShardStore.BLOCK_SIZE);
      join.add(ops.write(objectName, start, zeros(chunkEnd - start)));
      start = chunkEnd;
    }
  }

  private static ByteBuf zeros(int length) {
    return Unpooled.wrappedBuffer(ZEROS, 0, length);
  }
}
