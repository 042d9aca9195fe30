package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A block device a block gateway (NBD) exports: an image striped over store objects (see {@link
 * ImageLayout}).
 *
 * <p>Threading: methods are called on the reactor thread of the gateway's connection; the returned
 * stages may complete on any thread, and requests on one connection may complete in any order. The
 * gateway checks ranges against {@link #size()} and read-only before calling.
 *
 * <p>Failures: complete exceptionally with {@link io.tidestore.osd.ops.ObjectOpsException}, which
 * the gateway maps to its wire code; other exceptions are sent as EIO.
 *
 * <p>Durability: a write, trim or write-zeroes completes only once durable, so FUA needs no extra
 * work and {@link #flush()} only has to wait for nothing; the flag is passed for implementations
 * that batch differently.
 */
public interface BlockImage {
  /** The image name (the NBD export name). */
  String name();

  /** Size in bytes; constant while exported. */
  long size();

  boolean readOnly();

  /** Reads {@code length} bytes at {@code offset}; the caller releases the returned buffer. */
  CompletionStage<ByteBuf> read(long offset, int length);

  /** Writes {@code data} (released by the callee) at {@code offset}. */
  CompletionStage<Void> write(long offset, ByteBuf data, boolean fua);

  /** Receives the outcome of a hot-path request: null on success. */
  @FunctionalInterface
  interface Done {
    void done(Throwable failure);
  }

  /**
   * The read hot path: writes {@code length} bytes at {@code offset} into {@code into} at its
   * writer index (which the callee leaves where it was; the caller owns {@code into} and must not
   * touch those bytes until {@code done}). Implementations override this to skip the future and the
   * extra buffer of {@link #read}.
   */
  default void readInto(long offset, int length, ByteBuf into, Done done) {
    int at = into.writerIndex();
    read(offset, length)
        .whenComplete(
            (data, failure) -> {
              if (failure == null) {
                into.setBytes(at, data, data.readerIndex(), length);
                data.release();
              }
              done.done(failure);
            });
  }

  /** The write hot path: as {@link #write(long, ByteBuf, boolean)}, completing {@code done}. */
  default void write(long offset, ByteBuf data, boolean fua, Done done) {
    write(offset, data, fua).whenComplete((v, failure) -> done.done(failure));
  }

  /** Completes once every write completed before it is durable. */
  CompletionStage<Void> flush();

  /** Discards a range: reads of it then return zeroes ({@link Zeroing#PUNCH}). */
  default CompletionStage<Void> trim(long offset, long length, boolean fua) {
    return writeZeroes(offset, length, fua, Zeroing.PUNCH);
  }

  /** How {@link #writeZeroes} zeroes a range. */
  enum Zeroing {
    /**
     * Frees what it can: whole store blocks become holes (whole objects are removed), partial
     * blocks at the edges are written as zeros.
     */
    PUNCH,
    /** Writes zeros, so the range stays allocated (NBD_CMD_FLAG_NO_HOLE). */
    ALLOCATE,
    /**
     * Only by freeing (NBD_CMD_FLAG_FAST_ZERO): when that cannot zero all of the range, fails at
     * once with {@link io.tidestore.osd.ops.ObjectOpsException.Code#UNSUPPORTED}, having changed
     * nothing.
     */
    FAST
  }

  /** Zeroes a range, {@code how} says by what means. */
  CompletionStage<Void> writeZeroes(long offset, long length, boolean fua, Zeroing how);

  /**
   * Which bytes of {@code [offset, offset + length)} hold data, as image offsets; the rest reads as
   * zeros and takes no space (NBD's base:allocation holes). {@link Allocation#size} is the image's
   * size. By default everything is data, which is always a safe answer.
   */
  default CompletionStage<Allocation> allocation(long offset, long length) {
    return CompletableFuture.completedFuture(
        new Allocation(size(), length == 0 ? new long[0] : new long[] {offset, offset + length}));
  }

  /**
   * Brings a range into the store's caches (NBD_CMD_CACHE), completing once it is read. Advisory:
   * by default it does nothing.
   */
  default CompletionStage<Void> cache(long offset, long length) {
    return CompletableFuture.completedFuture(null);
  }
}
