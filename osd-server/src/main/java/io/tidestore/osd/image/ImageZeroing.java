package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.image.BlockImage.Zeroing;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.store.api.ShardStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Zeroing a range of an image (NBD's TRIM and WRITE_ZEROES): an object the range covers whole is
 * removed, whole store blocks inside an object are punched into holes ({@link ImageHoles#punch}),
 * and only partial blocks at the range's edges are written as zeros; or, for {@link
 * Zeroing#ALLOCATE}, everything is written as zeros. Freeing is what makes a trimmed range a hole
 * again for NBD_CMD_BLOCK_STATUS, and it is accepted on a full store.
 *
 * <p>Called on the connection's reactor thread (punches complete there too); the result may
 * complete on any thread.
 */
final class ImageZeroing {
  private static final int BLOCK = ShardStore.BLOCK_SIZE;

  /** Zeros to write; only ever read (the store copies what it writes). */
  private static final byte[] ZEROS = new byte[ImageLayout.DEFAULT_OBJECT_SIZE];

  private final ObjectOps ops;
  private final ImageLayout layout;
  private final ImageHoles holes; // null: nothing can be punched, zeros are written instead
  private final int maxWrite; // the most one store write may carry

  ImageZeroing(ObjectOps ops, ImageLayout layout, ImageHoles holes, int maxWrite) {
    if (layout.objectSize() > ZEROS.length) {
      throw new IllegalArgumentException("object size above " + ZEROS.length);
    }
    this.ops = ops;
    this.layout = layout;
    // Punching needs whole blocks inside an object.
    this.holes = layout.objectSize() >= BLOCK ? holes : null;
    this.maxWrite = maxWrite;
  }

  CompletionStage<Void> zero(long offset, long length, long imageSize, Zeroing how) {
    long end = offset + length;
    if (how != Zeroing.ALLOCATE && end == imageSize) {
      // Bytes past the image's end are never read (a grow clears them first), so a range that
      // ends the image frees its last block whole.
      end = Math.min(alignUp(end), layout.objectCount(imageSize) * layout.objectSize());
    }
    if (how == Zeroing.FAST && !freesAll(offset, end)) {
      return CompletableFuture.failedFuture(
          new ObjectOpsException(
              Code.UNSUPPORTED,
              "zeroing "
                  + length
                  + " bytes at "
                  + offset
                  + " needs writes: only whole "
                  + (holes != null ? BLOCK + "-byte blocks" : "objects")
                  + " can be freed"));
    }
    StageJoin join = new StageJoin();
    layout.forEachExtent(
        offset,
        end - offset,
        (object, objectOffset, pieceLength, at) -> {
          String name = layout.dataObjectName(object);
          if (how == Zeroing.ALLOCATE) {
            writeZeros(join, name, objectOffset, pieceLength);
          } else if (pieceLength == layout.objectSize()) {
            join.add(removeIfThere(name));
          } else {
            free(join, object, name, objectOffset, objectOffset + pieceLength);
          }
        });
    return join.issued();
  }

  /** Whether {@code [offset, end)} can be zeroed by freeing alone. */
  private boolean freesAll(long offset, long end) {
    long unit = holes != null ? BLOCK : layout.objectSize();
    return offset % unit == 0 && end % unit == 0;
  }

  /** Part of one object: punches its whole blocks, writes zeros over the partial ones. */
  private void free(StageJoin join, long object, String name, int start, int end) {
    int wholeStart = holes == null ? end : (int) Math.min(end, alignUp(start));
    int wholeEnd = holes == null ? end : Math.max(wholeStart, end & -BLOCK);
    if (wholeStart > start) {
      writeZeros(join, name, start, wholeStart - start);
    }
    if (wholeEnd > wholeStart) {
      join.add(missingIsHole(holes.punch(object, wholeStart, wholeEnd - wholeStart)));
    }
    if (end > wholeEnd) {
      writeZeros(join, name, wholeEnd, end - wholeEnd);
    }
  }

  private CompletionStage<Void> removeIfThere(String name) {
    return missingIsHole(ops.remove(name));
  }

  /** {@code change}, where a missing object counts as done: it is a hole already. */
  private static CompletionStage<Void> missingIsHole(CompletionStage<Void> change) {
    return change.exceptionally(
        failure -> {
          if (ObjectOpsException.is(failure, Code.NOT_FOUND)) {
            return null; // already a hole
          }
          throw new CompletionException(ObjectOpsException.unwrap(failure));
        });
  }

  /**
   * Zeros {@code length} bytes of one object in writes the store accepts: each touches at most
   * {@code maxWriteBytes / 4 KiB} blocks (the store counts blocks touched, so chunks end on block
   * boundaries), which on small shards is less than an object.
   */
  private void writeZeros(StageJoin join, String objectName, int objectOffset, int length) {
    int maxBlocks = Math.max(1, maxWrite / BLOCK);
    int end = objectOffset + length;
    for (int start = objectOffset; start < end; ) {
      int chunkEnd = (int) Math.min(end, ((long) start / BLOCK + maxBlocks) * BLOCK);
      join.add(ops.write(objectName, start, zeros(chunkEnd - start)));
      start = chunkEnd;
    }
  }

  private static ByteBuf zeros(int length) {
    return Unpooled.wrappedBuffer(ZEROS, 0, length);
  }

  private static long alignUp(long offset) {
    return (offset + BLOCK - 1) & -BLOCK;
  }
}
