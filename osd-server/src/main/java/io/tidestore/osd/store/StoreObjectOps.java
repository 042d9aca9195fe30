package io.tidestore.osd.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectNames;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@link ObjectOps} over the mounted shards: each op names its object, becomes one store call, and
 * runs on the reactor owning the object's shard ({@link ShardRouter}).
 *
 * <p>Threading: as {@link ObjectOps}: called on a connection's reactor thread (or any other),
 * stages complete on the caller's reactor when it is one.
 */
final class StoreObjectOps implements ObjectOps {
  private final MountedShards shards;
  private final ShardRouter router;

  StoreObjectOps(MountedShards shards, ShardRouter router) {
    this.shards = shards;
    this.router = router;
  }

  @Override
  public int[] shardOwners() {
    return shards.owners();
  }

  private <T> CompletionStage<T> onShard(ObjectKey key, ShardRouter.ShardOp<T> op) {
    return router.onShard(shards.shardOf(key), op);
  }

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    ObjectKey key;
    try {
      key = ObjectNames.key(name);
    } catch (ObjectOpsException e) {
      data.release();
      return CompletableFuture.failedFuture(e);
    }
    return onShard(
        key,
        (shard, done) -> {
          // The store copies the bytes into its journal batch before write() returns.
          try {
            shard.write(key, offset, segment(data), done);
          } finally {
            data.release();
          }
        });
  }

  @Override
  public CompletionStage<ByteBuf> read(String name, long offset, int length) {
    ObjectKey key = ObjectNames.key(name);
    return onShard(
        key,
        (shard, done) -> {
          ByteBuf into = ByteBufAllocator.DEFAULT.directBuffer(length, length);
          shard.read(
              key,
              offset,
              MemorySegment.ofBuffer(into.nioBuffer(0, length)),
              (count, failure) -> {
                if (failure != null) {
                  into.release();
                  done.complete(null, failure);
                } else {
                  done.complete(into.writerIndex(count), null);
                }
              });
        });
  }

  @Override
  public CompletionStage<ObjectInfo> stat(String name) {
    ObjectKey key = ObjectNames.key(name);
    CompletionStage<ObjectStat> stat = onShard(key, (s, d) -> s.stat(key, d));
    // The store keeps no modification time: 0 means unknown (docs/protocol.md).
    return stat.thenApply(st -> new ObjectInfo(st.size(), 0));
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    ObjectKey key = ObjectNames.key(name);
    return onShard(key, (s, d) -> s.truncate(key, size, d));
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    ObjectKey key = ObjectNames.key(name);
    return onShard(key, (s, d) -> s.remove(key, d));
  }

  @Override
  public CompletionStage<NamePage> list(int shard, String after, int max) {
    ObjectKey start = after.isEmpty() ? null : ObjectNames.key(after);
    CompletionStage<ListPage> page =
        router.onShard(shard, (s, d) -> s.list(ObjectNames.POOL, "", start, max, d));
    return page.thenApply(
        p -> new NamePage(p.keys().stream().map(ObjectKey::name).toList(), !p.isLast()));
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    byte[] bytes = new byte[value.readableBytes()];
    value.readBytes(bytes);
    value.release();
    ObjectKey object = ObjectNames.key(name);
    return onShard(object, (s, d) -> s.setXattr(object, key, bytes, d));
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    ObjectKey object = ObjectNames.key(name);
    CompletionStage<byte[]> value = onShard(object, (s, d) -> s.getXattr(object, key, d));
    return value.thenApply(Unpooled::wrappedBuffer);
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    ObjectKey object = ObjectNames.key(name);
    return onShard(object, (s, d) -> s.removeXattr(object, key, d));
  }

  /** {@code data}'s readable bytes as the store takes them: in place when contiguous. */
  static MemorySegment segment(ByteBuf data) {
    return data.nioBufferCount() == 1
        ? MemorySegment.ofBuffer(data.nioBuffer())
        : MemorySegment.ofArray(ByteBufUtil.getBytes(data));
  }
}
