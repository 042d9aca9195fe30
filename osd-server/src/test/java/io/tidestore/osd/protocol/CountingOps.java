package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ObjectOps that succeed at once and count what reached them, reads apart from mutations: a test of
 * the grants proves with them that nothing refused got through.
 */
final class CountingOps implements ObjectOps {
  final AtomicInteger reads = new AtomicInteger();
  final AtomicInteger mutations = new AtomicInteger();

  @Override
  public int[] shardOwners() {
    return new int[] {0, 1};
  }

  private <T> CompletionStage<T> read(T value) {
    reads.incrementAndGet();
    return CompletableFuture.completedFuture(value);
  }

  private CompletionStage<Void> mutation(ByteBuf owned) {
    if (owned != null) {
      owned.release();
    }
    mutations.incrementAndGet();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    return mutation(data);
  }

  @Override
  public CompletionStage<ByteBuf> read(String name, long offset, int length) {
    return read(Unpooled.wrappedBuffer(new byte[] {7, 7, 7}));
  }

  @Override
  public CompletionStage<ObjectInfo> stat(String name) {
    return read(new ObjectInfo(3, 0));
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    return mutation(null);
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    return mutation(null);
  }

  @Override
  public CompletionStage<NamePage> list(int shard, String after, int max) {
    return read(new NamePage(List.of("rbd_header.vm1"), false));
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    return mutation(value);
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    return read(Unpooled.wrappedBuffer(new byte[] {1}));
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    return mutation(null);
  }
}
