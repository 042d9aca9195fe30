package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.OpsStatus;
import io.tidestore.osd.protocol.ShardMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@link ObjectOps} over the object protocol, so what is written against the ops (the image rules
 * of {@link io.tidestore.osd.image.ImageAdmin}) runs on a remote OSD too. A reply status that names
 * an op failure ({@link OpsStatus#codeOf}) fails the op with that {@link ObjectOpsException}, its
 * message the client's; the protocol's own failures (EPROTO, a closed connection, ...) stay as they
 * are. Thread-safe, as {@link ShardAwareClient}; the caller keeps and closes the client.
 */
public final class ClientObjectOps implements ObjectOps {
  private final ShardAwareClient client;

  public ClientObjectOps(ShardAwareClient client) {
    this.client = client;
  }

  @Override
  public int[] shardOwners() {
    ShardMap map = client.shardMap();
    int[] owners = new int[map.shards()];
    for (int shard = 0; shard < owners.length; shard++) {
      owners[shard] = map.ownerOf(shard);
    }
    return owners;
  }

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    return asOps(client.write(name, offset, data));
  }

  @Override
  public CompletionStage<ByteBuf> read(String name, long offset, int length) {
    return asOps(client.read(name, offset, length));
  }

  @Override
  public CompletionStage<ObjectInfo> stat(String name) {
    return asOps(client.stat(name));
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    return asOps(client.truncate(name, size));
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    return asOps(client.remove(name));
  }

  @Override
  public CompletionStage<NamePage> list(int shard, String after, int max) {
    return asOps(client.list(shard, after, max));
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    return asOps(client.setXattr(name, key, value));
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    return asOps(client.getXattr(name, key));
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    return asOps(client.removeXattr(name, key));
  }

  private static <T> CompletableFuture<T> asOps(CompletableFuture<T> reply) {
    return reply.exceptionally(
        failure -> {
          throw new CompletionException(asOpFailure(ObjectOpsException.unwrap(failure)));
        });
  }

  /** A failed reply as the op failure its status names, else as it is. */
  static Throwable asOpFailure(Throwable failure) {
    if (failure instanceof OpException e) {
      ObjectOpsException.Code code = OpsStatus.codeOf(e.status());
      if (code != null) {
        return new ObjectOpsException(code, e.getMessage());
      }
    }
    return failure;
  }
}
