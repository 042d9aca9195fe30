package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletionStage;

/**
 * {@link ObjectOps} over a replicated cluster, for one pool: what is written against the ops
 * (images and their NBD exports, {@code image} commands) runs on the cluster, every op following
 * the map ({@link ClusterClient}). The pool's PGs stand for the "shards" of {@link #list}: shard
 * {@code s} is PG {@code s}, listed on its primary. Thread-safe; the caller keeps and closes the
 * client.
 */
public final class ClusterObjectOps implements ObjectOps {
  private final ClusterClient client;
  private final String pool;

  public ClusterObjectOps(ClusterClient client, String pool) {
    this.client = client;
    this.pool = pool;
  }

  private PoolInfo poolInfo() {
    return client
        .map()
        .pool(pool)
        .orElseThrow(
            () ->
                new ObjectOpsException(
                    ObjectOpsException.Code.NOT_FOUND,
                    "no pool "
                        + pool
                        + " in the cluster map (epoch "
                        + client.map().epoch()
                        + ")"));
  }

  /** One entry per PG of the pool (the owner is meaningless here: a cluster has no reactors). */
  @Override
  public int[] shardOwners() {
    return new int[poolInfo().pgNum()];
  }

  /**
   * Largest write sent as one op: every OSD geometry takes it as one transaction (a shard of 16 MiB
   * has 256 KiB segments); larger writes go as several ops in parallel, on disjoint ranges. A write
   * is then atomic per piece, as a disk's is per sector: NBD promises no more.
   */
  static final int PIECE = 128 << 10;

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    int length = data.readableBytes();
    if (length <= PIECE) {
      return client.write(pool, name, offset, data);
    }
    java.util.List<java.util.concurrent.CompletableFuture<Void>> pieces =
        new java.util.ArrayList<>();
    try {
      for (int at = 0; at < length; at += PIECE) {
        int n = Math.min(PIECE, length - at);
        pieces.add(
            client.write(pool, name, offset + at, data.retainedSlice(data.readerIndex() + at, n)));
      }
    } finally {
      data.release();
    }
    return java.util.concurrent.CompletableFuture.allOf(
        pieces.toArray(java.util.concurrent.CompletableFuture[]::new));
  }

  /** The primaries punch and report allocation (TRIM and BLOCK_STATUS through the gateway). */
  @Override
  public boolean freesBlocks() {
    return true;
  }

  @Override
  public CompletionStage<Void> punch(String name, long offset, long length) {
    return client.punch(pool, name, offset, length);
  }

  @Override
  public CompletionStage<Allocation> allocation(String name, long offset, long length) {
    return client.allocation(pool, name, offset, length);
  }

  @Override
  public CompletionStage<ByteBuf> read(String name, long offset, int length) {
    return client.read(pool, name, offset, length);
  }

  @Override
  public CompletionStage<ObjectInfo> stat(String name) {
    return client.stat(pool, name);
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    return client.truncate(pool, name, size);
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    return client.remove(pool, name);
  }

  /** Names in PG {@code shard} of the pool. */
  @Override
  public CompletionStage<NamePage> list(int shard, String after, int max) {
    return client.listPg(pool, shard, after, max);
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    return client.setXattr(pool, name, key, value);
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    return client.getXattr(pool, name, key);
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    return client.removeXattr(pool, name, key);
  }
}
