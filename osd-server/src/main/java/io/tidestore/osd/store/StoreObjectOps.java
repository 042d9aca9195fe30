package io.tidestore.osd.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.image.PieceIo;
import io.tidestore.osd.protocol.ListPage;
import io.tidestore.osd.protocol.ObjectOps;
import io.tidestore.osd.protocol.ObjectStat;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Placement;
import io.tidestore.osd.protocol.Status;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.shard.Handoff;
import io.tidestore.osd.shard.ShardAssignment;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.io.IoQueueConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntFunction;

/**
 * {@link ObjectOps} over the object store: every shard is mounted on the reactor that owns it
 * ({@link ShardAssignment}), and each op runs there, handed over once from the connection's reactor
 * when that is another one ({@link Handoff}), its reply coming back to the connection's reactor.
 * Protocol objects live in pool {@link Placement#POOL}.
 *
 * <p>Threading: op methods are called on a connection's reactor thread (as {@link ObjectOps}
 * requires); {@link #start} and {@link #close} from one thread at startup and shutdown.
 */
public final class StoreObjectOps implements ObjectOps, PieceIo, AutoCloseable {
  private final ObjectStore store;
  private final int[] owners;
  private final List<ReactorShards> reactors = new ArrayList<>();
  private final ReactorShards[] byShard;
  private int maxWriteBytes; // the smallest of every shard's; set by start before the ops escape

  private StoreObjectOps(ObjectStore store, int[] owners) {
    this.store = store;
    this.owners = owners;
    this.byShard = new ReactorShards[owners.length];
  }

  /** Mounts every shard of {@code store} on its owning reactor; blocks until all are mounted. */
  public static StoreObjectOps start(
      ObjectStore store, Reactors reactors, IoQueueConfig queues, ShardCaches caches)
      throws IOException {
    return start(store, reactors, queues, ShardQueueFactory.OWN_RING, caches);
  }

  /**
   * Mounts every shard of {@code store} on the loop of {@code reactors} that owns it (the reactors
   * themselves, or the classic engine's op workers), each loop's shards sharing one queue from
   * {@code queueFactory}; blocks until all are mounted.
   */
  public static StoreObjectOps start(
      ObjectStore store,
      Reactors reactors,
      IoQueueConfig queues,
      ShardQueueFactory queueFactory,
      ShardCaches caches)
      throws IOException {
    int[] owners = ShardAssignment.roundRobin(store.shardCount(), reactors.size());
    StoreObjectOps ops = new StoreObjectOps(store, owners);
    try {
      int used = ShardAssignment.effectiveReactors(reactors.size(), store.shardCount());
      for (int r = 0; r < used; r++) {
        List<Integer> mine = new ArrayList<>();
        for (int s = 0; s < owners.length; s++) {
          if (owners[s] == r) {
            mine.add(s);
          }
        }
        int[] ids = mine.stream().mapToInt(Integer::intValue).toArray();
        ReactorShards shards =
            ReactorShards.open(reactors.get(r), store, ids, queues, queueFactory, caches);
        ops.reactors.add(shards);
        for (int id : ids) {
          ops.byShard[id] = shards;
        }
      }
      long max = Integer.MAX_VALUE;
      for (ReactorShards shards : ops.reactors) {
        max = Math.min(max, shards.maxWriteBytes());
      }
      ops.maxWriteBytes = (int) max;
      return ops;
    } catch (IOException | RuntimeException e) {
      ops.close();
      throw e;
    }
  }

  /**
   * Switches every shard's extent cache to {@code config}, each on its own reactor; every cached
   * extent stays valid. Any thread. Fails when the daemon runs without caches.
   */
  public CompletableFuture<Void> switchCachePolicy(PolicyConfig config) {
    List<CompletableFuture<?>> switched = new ArrayList<>();
    for (int shard = 0; shard < byShard.length; shard++) {
      ReactorShards owner = byShard[shard];
      if (owner == null || owner.caches().isEmpty()) {
        continue;
      }
      ExtentCache cache = owner.cache(shard);
      switched.add(cache.requestPolicy(config));
      // Applied at the cache's next use anyway; this makes an idle shard switch now.
      owner.reactor().loop().execute(cache::applyPendingPolicy);
    }
    if (switched.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("this daemon runs without an extent cache (--cache-size 0)"));
    }
    return CompletableFuture.allOf(switched.toArray(CompletableFuture[]::new));
  }

  /** Every shard's extent cache, indexed by shard; empty when the daemon runs without one. */
  public List<ExtentCache> caches() {
    List<ExtentCache> all = new ArrayList<>();
    for (ReactorShards shards : byShard) {
      if (shards == null || shards.caches().isEmpty()) {
        return List.of();
      }
    }
    for (int shard = 0; shard < byShard.length; shard++) {
      all.add(byShard[shard].cache(shard));
    }
    return all;
  }

  /**
   * Every shard's stats, indexed by shard, each snapshot taken on the reactor owning the shard (the
   * only thread that may read its counters). Any thread.
   */
  public CompletableFuture<ShardStats[]> shardStats() {
    ShardStats[] out = new ShardStats[byShard.length];
    List<CompletableFuture<Void>> taken = new ArrayList<>();
    for (ReactorShards shards : reactors) {
      taken.add(CompletableFuture.runAsync(() -> shards.statsInto(out), shards.reactor().loop()));
    }
    return CompletableFuture.allOf(taken.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  /** Gives every shard's journal its observer, each on its reactor; blocks until done. */
  public void observeJournals(IntFunction<JournalObserver> observers) {
    List<CompletableFuture<Void>> set = new ArrayList<>();
    for (ReactorShards shards : reactors) {
      set.add(
          CompletableFuture.runAsync(
              () -> shards.observeJournals(observers), shards.reactor().loop()));
    }
    CompletableFuture.allOf(set.toArray(CompletableFuture[]::new)).join();
  }

  @Override
  public int[] shardOwners() {
    return owners.clone();
  }

  /** Runs {@code op} on the shard owning {@code key}, replying on the calling reactor. */
  private <T> CompletionStage<T> onShard(ObjectKey key, ShardOp<T> op) {
    return onShard(store.shardOf(key), op);
  }

  private <T> CompletionStage<T> onShard(int shardId, ShardOp<T> op) {
    ReactorShards owner = byShard[shardId];
    EventExecutor caller = currentExecutor(owner);
    return Handoff.submitTo(
        owner.reactor().loop(),
        caller,
        () -> {
          CompletableFuture<T> done = new CompletableFuture<>();
          op.start(
              owner.shard(shardId),
              (value, failure) -> {
                if (failure != null) {
                  done.completeExceptionally(StoreErrors.toOp(failure));
                } else {
                  done.complete(value);
                }
              });
          return done;
        });
  }

  /** The calling reactor's loop (ops are called on one), else the owner's. */
  private EventExecutor currentExecutor(ReactorShards fallback) {
    for (ReactorShards shards : reactors) {
      if (shards.reactor().loop().inEventLoop()) {
        return shards.reactor().loop();
      }
    }
    // A reactor that owns no shard (R > S) or a foreign thread: reply where the op runs; the
    // protocol handler hops to the connection's loop itself.
    return fallback.reactor().loop();
  }

  @FunctionalInterface
  private interface ShardOp<T> {
    void start(ShardStore shard, StoreCompletion<T> done);
  }

  private static ObjectKey key(String name) {
    try {
      return new ObjectKey(Placement.POOL, name);
    } catch (IllegalArgumentException e) {
      throw new OpException(Status.EINVAL, e.getMessage());
    }
  }

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    ObjectKey key;
    try {
      key = key(name);
    } catch (OpException e) {
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
    ObjectKey key = key(name);
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
  public PieceIo.Target target(String name) {
    ObjectKey key = key(name);
    return new PieceIo.Target(key, store.shardOf(key));
  }

  @Override
  public void read(
      PieceIo.Target target, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    ReactorShards owner = byShard[target.shard()];
    if (owner.reactor().loop().inEventLoop()) {
      owner.shard(target.shard()).read(target.key(), offset, into, done);
      return;
    }
    EventExecutor caller = currentExecutor(owner);
    onOwner(
        owner,
        done,
        () ->
            owner
                .shard(target.shard())
                .read(
                    target.key(),
                    offset,
                    into,
                    (count, failure) ->
                        Handoff.replyOn(caller, () -> done.complete(count, failure))));
  }

  @Override
  public void write(PieceIo.Target target, long offset, ByteBuf data, StoreCompletion<Void> done) {
    ReactorShards owner = byShard[target.shard()];
    if (owner.reactor().loop().inEventLoop()) {
      // The store copies the bytes into its journal batch before write() returns.
      try {
        owner.shard(target.shard()).write(target.key(), offset, segment(data), done);
      } finally {
        data.release();
      }
      return;
    }
    EventExecutor caller = currentExecutor(owner);
    StoreObjectOps.<Void>onOwner(
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
                    segment(data),
                    (value, failure) ->
                        Handoff.replyOn(caller, () -> done.complete(value, failure)));
          } finally {
            data.release();
          }
        });
  }

  @Override
  public int maxWriteBytes() {
    return maxWriteBytes;
  }

  /** Runs {@code work} on {@code owner}'s reactor; a stopped reactor fails {@code done}. */
  private static <T> void onOwner(ReactorShards owner, StoreCompletion<T> refused, Runnable work) {
    try {
      owner.reactor().loop().execute(work);
    } catch (RejectedExecutionException e) {
      refused.complete(
          null, new StoreException(StoreException.Code.CLOSED, "owning reactor stopped"));
    }
  }

  @Override
  public CompletionStage<ObjectStat> stat(String name) {
    ObjectKey key = key(name);
    CompletionStage<io.tidestore.store.api.ObjectStat> stat =
        onShard(key, (s, d) -> s.stat(key, d));
    // The store keeps no modification time: 0 means unknown (docs/protocol.md).
    return stat.thenApply(st -> new ObjectStat(st.size(), 0));
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    ObjectKey key = key(name);
    return onShard(key, (s, d) -> s.truncate(key, size, d));
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    ObjectKey key = key(name);
    return onShard(key, (s, d) -> s.remove(key, d));
  }

  @Override
  public CompletionStage<ListPage> list(int shard, String after, int max) {
    ObjectKey start = after.isEmpty() ? null : key(after);
    CompletionStage<io.tidestore.store.api.ListPage> page =
        onShard(shard, (s, d) -> s.list(Placement.POOL, "", start, max, d));
    return page.thenApply(
        p -> new ListPage(p.keys().stream().map(ObjectKey::name).toList(), !p.isLast()));
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    byte[] bytes = new byte[value.readableBytes()];
    value.readBytes(bytes);
    value.release();
    ObjectKey object = key(name);
    return onShard(object, (s, d) -> s.setXattr(object, key, bytes, d));
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    ObjectKey object = key(name);
    CompletionStage<byte[]> value = onShard(object, (s, d) -> s.getXattr(object, key, d));
    return value.thenApply(io.netty.buffer.Unpooled::wrappedBuffer);
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    ObjectKey object = key(name);
    return onShard(object, (s, d) -> s.removeXattr(object, key, d));
  }

  private static MemorySegment segment(ByteBuf data) {
    return data.nioBufferCount() == 1
        ? MemorySegment.ofBuffer(data.nioBuffer())
        : MemorySegment.ofArray(io.netty.buffer.ByteBufUtil.getBytes(data));
  }

  /** Closes every shard on its reactor (waiting for pending ops); the store stays open. */
  @Override
  public void close() {
    for (ReactorShards shards : reactors) {
      shards.close();
    }
    reactors.clear();
  }
}
