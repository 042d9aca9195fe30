package io.tidestore.osd.image;

import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletionStage;

/**
 * Where an image's data objects have whole blocks freed (TRIM, WRITE_ZEROES) and are asked which
 * blocks hold data (BLOCK_STATUS): the store's piece path on a standalone daemon ({@link
 * PieceTargets}), or object ops that can (the cluster's primaries, {@link #of}). Failures are
 * {@link io.tidestore.osd.ops.ObjectOpsException}s; called on the connection's thread, completes on
 * any.
 */
interface ImageHoles {
  /** Frees the whole blocks {@code [offset, offset + length)} of data object {@code object}. */
  CompletionStage<Void> punch(long object, int offset, int length);

  /**
   * Which bytes of {@code [offset, offset + length)} of data object {@code object} hold data;
   * NOT_FOUND when the object does not exist (all of it is a hole).
   */
  CompletionStage<Allocation> allocation(long object, long offset, long length);

  /** Through {@code ops}, or null when they cannot free blocks ({@link ObjectOps#freesBlocks}). */
  static ImageHoles of(ObjectOps ops, ImageLayout layout) {
    if (!ops.freesBlocks()) {
      return null;
    }
    return new ImageHoles() {
      @Override
      public CompletionStage<Void> punch(long object, int offset, int length) {
        return ops.punch(layout.dataObjectName(object), offset, length);
      }

      @Override
      public CompletionStage<Allocation> allocation(long object, long offset, long length) {
        return ops.allocation(layout.dataObjectName(object), offset, length);
      }
    };
  }
}
