package io.tidestore.osd.ops;

import io.netty.buffer.ByteBuf;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The object operations the gateways call: the object protocol serves them, the images are built on
 * them, and the daemon implements them on top of the store ({@code osd.store}). Objects are named
 * by strings; {@link ObjectNames} says how a name becomes a store key.
 *
 * <p>Threading: the daemon's gateways call every method on the reactor thread that owns the
 * connection; the store's implementation routes the op to the reactor owning the object's shard
 * (handing it over once when that is another reactor) and may complete the returned stage on any
 * thread. Other callers (tools, through a protocol client) may call from any thread. Ops are
 * pipelined: many may be in flight and may complete in any order.
 *
 * <p>Failures: complete exceptionally (or throw, for arguments refused at once) with {@link
 * ObjectOpsException}, whose {@link ObjectOpsException.Code} each gateway maps to its own wire
 * code; any other exception is an unexpected failure (EIO on every gateway, and logged).
 *
 * <p>Buffers: {@code data}/{@code value} arguments are owned by the callee, which must release
 * them; returned buffers are owned by the caller, who releases them.
 */
public interface ObjectOps {
  /** Store shard count and the reactor owning each shard (element s: reactor of shard s). */
  int[] shardOwners();

  /** Writes {@code data} at {@code offset}, extending the object; completes once durable. */
  CompletionStage<Void> write(String name, long offset, ByteBuf data);

  /** Reads up to {@code length} bytes at {@code offset}; short at the end of the object. */
  CompletionStage<ByteBuf> read(String name, long offset, int length);

  CompletionStage<ObjectInfo> stat(String name);

  /** Sets the size, dropping or zero-extending data; completes once durable. */
  CompletionStage<Void> truncate(String name, long size);

  CompletionStage<Void> remove(String name);

  /**
   * Names in shard {@code shard} after {@code after} (empty: from the start), at most {@code max}.
   */
  CompletionStage<NamePage> list(int shard, String after, int max);

  CompletionStage<Void> setXattr(String name, String key, ByteBuf value);

  CompletionStage<ByteBuf> getXattr(String name, String key);

  CompletionStage<Void> removeXattr(String name, String key);

  /**
   * Whether {@link #punch} and {@link #allocation} work here; where they do not, images write zeros
   * to zero a range and report every block as data.
   */
  default boolean freesBlocks() {
    return false;
  }

  /**
   * Frees the whole 4 KiB blocks of {@code [offset, offset + length)} (both multiples of 4 KiB):
   * they read as zeros and are holes for {@link #allocation}; completes once durable.
   */
  default CompletionStage<Void> punch(String name, long offset, long length) {
    return CompletableFuture.failedFuture(
        new ObjectOpsException(ObjectOpsException.Code.UNSUPPORTED, "punch is not supported"));
  }

  /**
   * Which bytes of {@code [offset, offset + length)} of the object hold data (4 KiB blocks);
   * NOT_FOUND when the object does not exist.
   */
  default CompletionStage<Allocation> allocation(String name, long offset, long length) {
    return CompletableFuture.failedFuture(
        new ObjectOpsException(
            ObjectOpsException.Code.UNSUPPORTED, "allocation queries are not supported"));
  }
}
