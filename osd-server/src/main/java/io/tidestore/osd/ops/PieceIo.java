package io.tidestore.osd.ops;

import io.netty.buffer.ByteBuf;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import java.lang.foreign.MemorySegment;

/**
 * The image data path's way into the store, one object piece per call: the object is resolved once
 * ({@link #target}) so no name is formatted, encoded or hashed per op, and completion is a callback
 * rather than a chain of futures. The generic {@link ObjectOps} stays the path for everything else.
 *
 * <p>Threading: called on a reactor thread; completions run on that same reactor thread.
 */
public interface PieceIo {
  /** An object resolved to its key and owning shard. Immutable. */
  record Target(ObjectKey key, int shard) {}

  /**
   * Resolves {@code name}; any thread.
   *
   * @throws ObjectOpsException INVALID for a name the store refuses
   */
  Target target(String name);

  /**
   * Reads up to {@code into.byteSize()} bytes at {@code offset}; completes with the count copied
   * (short at the object's end) or the store's NOT_FOUND for a missing object. {@code into} must
   * stay valid until the completion.
   */
  void read(Target target, long offset, MemorySegment into, StoreCompletion<Integer> done);

  /**
   * Writes {@code data} (released by the callee), at most {@link #maxWriteBytes()} bytes; completes
   * once durable. A longer write fails (EINVAL from the store).
   */
  void write(Target target, long offset, ByteBuf data, StoreCompletion<Void> done);

  /**
   * Frees the blocks of {@code [offset, offset + length)} (multiples of the block size): they read
   * as zeros and are holes; NOT_FOUND for a missing object ({@link
   * io.tidestore.store.api.ShardStore#punch}).
   */
  void punch(Target target, long offset, long length, StoreCompletion<Void> done);

  /**
   * Which bytes of {@code [offset, offset + length)} hold data; NOT_FOUND for a missing object
   * ({@link io.tidestore.store.api.ShardStore#allocation}).
   */
  void allocation(Target target, long offset, long length, StoreCompletion<Allocation> done);

  /**
   * The largest {@code data} one {@link #write} accepts, for every target: the store's largest
   * single write ({@link io.tidestore.store.api.ShardStore#maxWriteBytes}), which depends on the
   * store's segment size (under 4 MiB on 256 MiB shards, under 1 MiB on 64 MiB ones). Callers split
   * longer writes. Constant; any thread.
   */
  int maxWriteBytes();
}
