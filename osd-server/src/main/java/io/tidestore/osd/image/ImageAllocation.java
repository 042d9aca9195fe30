package io.tidestore.osd.image;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.Allocation;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which bytes of an image range hold data (NBD_CMD_BLOCK_STATUS): one allocation query per object
 * the range touches, all in flight at once, merged into image offsets. A missing object is a hole,
 * and so is every block the store reports unallocated (never written, punched, or past the object's
 * end). Called on the connection's reactor thread; completes on any.
 */
final class ImageAllocation {
  private ImageAllocation() {}

  static CompletionStage<Allocation> of(
      ImageLayout layout, ImageHoles holes, long offset, long length, long imageSize) {
    int pieces = (int) (layout.objectCount(offset + length) - layout.objectNumber(offset));
    if (length == 0 || pieces <= 0) {
      return CompletableFuture.completedFuture(new Allocation(imageSize, new long[0]));
    }
    Query query = new Query(pieces, imageSize);
    layout.forEachExtent(
        offset,
        length,
        (object, objectOffset, pieceLength, at) -> {
          int index = (int) (object - layout.objectNumber(offset));
          long base = object * layout.objectSize();
          holes
              .allocation(object, objectOffset, pieceLength)
              .whenComplete((allocation, failure) -> query.piece(index, base, allocation, failure));
        });
    return query.result;
  }

  /** The pieces' answers, merged once the last arrives. */
  private static final class Query {
    final CompletableFuture<Allocation> result = new CompletableFuture<>();
    private final long[][] ranges; // per piece, in image offsets; null: a hole
    private final AtomicInteger left;
    private final long imageSize;

    Query(int pieces, long imageSize) {
      this.ranges = new long[pieces][];
      this.left = new AtomicInteger(pieces);
      this.imageSize = imageSize;
    }

    void piece(int index, long base, Allocation allocation, Throwable failure) {
      if (failure != null && !ObjectOpsException.is(failure, ObjectOpsException.Code.NOT_FOUND)) {
        result.completeExceptionally(ObjectOpsException.unwrap(failure));
        return;
      }
      if (failure == null) {
        long[] r = allocation.ranges();
        for (int i = 0; i < r.length; i++) {
          r[i] += base;
        }
        ranges[index] = r;
      }
      if (left.decrementAndGet() == 0) {
        result.complete(new Allocation(imageSize, merge()));
      }
    }

    /** The pieces' ranges in order, ranges that meet at an object boundary joined. */
    private long[] merge() {
      long[] out = new long[8];
      int n = 0;
      for (long[] r : ranges) {
        if (r == null) {
          continue;
        }
        for (int i = 0; i < r.length; i += 2) {
          if (n > 0 && out[n - 1] == r[i]) {
            out[n - 1] = r[i + 1];
            continue;
          }
          if (n + 2 > out.length) {
            out = Arrays.copyOf(out, out.length * 2);
          }
          out[n++] = r[i];
          out[n++] = r[i + 1];
        }
      }
      return Arrays.copyOf(out, n);
    }
  }
}
