package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletionStage;

/**
 * The object operations behind protocol v1, implemented by the OSD on top of the store.
 *
 * <p>Threading: every method is called on the reactor thread that owns the client connection. The
 * implementation routes the op to the reactor owning the object's shard (handing it over once when
 * that is another reactor) and may complete the returned stage on any thread; the server writes the
 * reply on the connection's loop. Ops are pipelined: many may be in flight per connection and may
 * complete in any order.
 *
 * <p>Failures: complete exceptionally with {@link OpException} to choose the reply status (ENOENT,
 * ENOSPC, ...); any other exception is replied as EIO and logged.
 *
 * <p>Buffers: {@code data}/{@code value} arguments are owned by the callee, which must release
 * them; returned buffers are owned by the server, which releases them after writing.
 */
public interface ObjectOps {
  /** Store shard count and the reactor owning each shard (element s: reactor of shard s). */
  int[] shardOwners();

  /** Writes {@code data} at {@code offset}, extending the object; completes once durable. */
  CompletionStage<Void> write(String name, long offset, ByteBuf data);

  /** Reads up to {@code length} bytes at {@code offset}; short at the end of the object. */
  CompletionStage<ByteBuf> read(String name, long offset, int length);

  CompletionStage<ObjectStat> stat(String name);

  /** Sets the size, dropping or zero-extending data; completes once durable. */
  CompletionStage<Void> truncate(String name, long size);

  CompletionStage<Void> remove(String name);

  /**
   * Names in shard {@code shard} after {@code after} (empty: from the start), at most {@code max}.
   */
  CompletionStage<ListPage> list(int shard, String after, int max);

  CompletionStage<Void> setXattr(String name, String key, ByteBuf value);

  CompletionStage<ByteBuf> getXattr(String name, String key);

  CompletionStage<Void> removeXattr(String name, String key);
}
