package io.tidestore.osd.store;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.ops.ObjectNames;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;

/**
 * The image data path's fast way into the mounted shards ({@link PieceIo}): a call on the owning
 * reactor goes straight to the shard, one from another reactor hops there once and its completion
 * hops back, with no future in between.
 */
final class StorePieceIo implements PieceIo {
  private final MountedShards shards;
  private final ShardRouter router;

  StorePieceIo(MountedShards shards, ShardRouter router) {
    this.shards = shards;
    this.router = router;
  }

  @Override
  public PieceIo.Target target(String name) {
    ObjectKey key = ObjectNames.key(name);
    return new PieceIo.Target(key, shards.shardOf(key));
  }

  // Each op calls its shard directly when the caller owns it and builds a lambda only for the
  // hand-off: a lambda on the fast path would allocate per op (it captures the arguments), and
  // one shared op.accept call site turns megamorphic once punch and allocation have run, which
  // stops the JIT from inlining the read into the NBD handler.

  @Override
  public void read(
      PieceIo.Target target, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    ShardOwner owner = shards.ownerOf(target.shard());
    if (owner.executor().inEventLoop()) {
      owner.shard(target.shard()).read(target.key(), offset, into, done);
    } else {
      handOff(owner, target, done, (shard, reply) -> shard.read(target.key(), offset, into, reply));
    }
  }

  @Override
  public void punch(PieceIo.Target target, long offset, long length, StoreCompletion<Void> done) {
    ShardOwner owner = shards.ownerOf(target.shard());
    if (owner.executor().inEventLoop()) {
      owner.shard(target.shard()).punch(target.key(), offset, length, done);
    } else {
      handOff(
          owner, target, done, (shard, reply) -> shard.punch(target.key(), offset, length, reply));
    }
  }

  @Override
  public void allocation(
      PieceIo.Target target, long offset, long length, StoreCompletion<Allocation> done) {
    ShardOwner owner = shards.ownerOf(target.shard());
    if (owner.executor().inEventLoop()) {
      owner.shard(target.shard()).allocation(target.key(), offset, length, done);
    } else {
      handOff(
          owner,
          target,
          done,
          (shard, reply) -> shard.allocation(target.key(), offset, length, reply));
    }
  }

  /** Runs {@code op} on the target's owning reactor; its completion hops back to the caller. */
  private <T> void handOff(
      ShardOwner owner,
      PieceIo.Target target,
      StoreCompletion<T> done,
      BiConsumer<ShardStore, StoreCompletion<T>> op) {
    EventExecutor caller = router.callerLoop(owner);
    ShardRouter.onOwner(
        owner,
        done,
        () ->
            op.accept(
                owner.shard(target.shard()),
                (value, failure) ->
                    ShardRouter.reply(owner, caller, () -> done.complete(value, failure))));
  }

  @Override
  public void write(PieceIo.Target target, long offset, ByteBuf data, StoreCompletion<Void> done) {
    ShardOwner owner = shards.ownerOf(target.shard());
    if (owner.executor().inEventLoop()) {
      // The store copies the bytes into its journal batch before write() returns.
      try {
        owner.shard(target.shard()).write(target.key(), offset, StoreObjectOps.segment(data), done);
      } finally {
        data.release();
      }
      return;
    }
    EventExecutor caller = router.callerLoop(owner);
    ShardRouter.<Void>onOwner(
        owner,
        (value, failure) -> {
          data.release(); // refused before the shard ran
          done.complete(value, failure);
        },
        () -> {
          try {
            owner
                .shard(target.shard())
                .write(
                    target.key(),
                    offset,
                    StoreObjectOps.segment(data),
                    (value, failure) ->
                        ShardRouter.reply(owner, caller, () -> done.complete(value, failure)));
          } finally {
            data.release();
          }
        });
  }

  @Override
  public int maxWriteBytes() {
    return shards.maxWriteBytes();
  }
}
