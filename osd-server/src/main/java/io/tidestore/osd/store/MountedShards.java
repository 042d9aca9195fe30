package io.tidestore.osd.store;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.classic.ClassicThreads;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.shard.ShardAssignment;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.io.IoQueueConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The store's shards, each mounted on its owner (the reactor that owns it, {@link ShardAssignment};
 * or in the classic engine its placement group on the sharded op queue), and the ways in: {@link
 * #objectOps} for the gateways, {@link #pieceIo} for the image data path, {@link #admin} for the
 * cache policy and stats. Protocol objects live in pool {@link
 * io.tidestore.osd.ops.ObjectNames#POOL}.
 *
 * <p>Threading: {@link #mount} and {@link #close} from one thread at startup and shutdown; the
 * lookups are fixed once mounted and safe from any thread.
 */
public final class MountedShards implements AutoCloseable {
  private final ObjectStore store;
  private final int[] owners;
  private final List<ShardOwner> shardOwners = new ArrayList<>();
  private final ShardOwner[] byShard;
  private final EventExecutor[] callerLoops;
  private int maxWriteBytes; // the smallest of every shard's; set by mount before the ops escape
  private final StoreObjectOps objectOps;
  private final StorePieceIo pieceIo;
  private final StoreAdmin admin;

  private MountedShards(ObjectStore store, int[] owners, EventExecutor[] callerLoops) {
    this.store = store;
    this.owners = owners;
    this.callerLoops = callerLoops;
    this.byShard = new ShardOwner[owners.length];
    ShardRouter router = new ShardRouter(this);
    this.objectOps = new StoreObjectOps(this, router);
    this.pieceIo = new StorePieceIo(this, router);
    this.admin = new StoreAdmin(this);
  }

  /**
   * The reactor engine: mounts every shard of {@code store} on the reactor that owns it ({@link
   * ShardAssignment#roundRobin}), each reactor's shards sharing one ring; blocks until all are
   * mounted.
   */
  public static MountedShards mount(
      ObjectStore store, Reactors reactors, IoQueueConfig queues, ShardCaches caches)
      throws IOException {
    int[] owners = ShardAssignment.roundRobin(store.shardCount(), reactors.size());
    int used = ShardAssignment.effectiveReactors(reactors.size(), store.shardCount());
    EventExecutor[] callers = new EventExecutor[used];
    for (int r = 0; r < used; r++) {
      callers[r] = reactors.get(r).loop();
    }
    MountedShards mounted = new MountedShards(store, owners, callers);
    try {
      for (int r = 0; r < used; r++) {
        List<Integer> mine = new ArrayList<>();
        for (int s = 0; s < owners.length; s++) {
          if (owners[s] == r) {
            mine.add(s);
          }
        }
        int[] ids = mine.stream().mapToInt(Integer::intValue).toArray();
        mounted.add(ReactorShards.open(reactors.get(r), store, ids, queues, caches), ids);
      }
      return mounted.sealed();
    } catch (IOException | RuntimeException e) {
      mounted.close();
      throw e;
    }
  }

  /**
   * The classic engine: mounts every shard of {@code store} as a placement group of {@code
   * threads}' sharded op queue (shard s on op shard s mod op-shards), each with its own ring on an
   * I/O loop; the replies of ops called from the {@code messengers} go back to them. Blocks until
   * all are mounted.
   */
  public static MountedShards mountClassic(
      ObjectStore store,
      ClassicThreads threads,
      Reactors messengers,
      IoQueueConfig queues,
      ShardCaches caches)
      throws IOException {
    int[] owners = new int[store.shardCount()];
    List<CompletableFuture<ClassicShard>> opening = new ArrayList<>();
    for (int s = 0; s < owners.length; s++) {
      owners[s] = threads.opShardOf(s);
      opening.add(ClassicShard.open(threads, store, s, queues, caches));
    }
    EventExecutor[] callers = new EventExecutor[messengers.size()];
    for (int m = 0; m < callers.length; m++) {
      callers[m] = messengers.get(m).loop();
    }
    MountedShards mounted = new MountedShards(store, owners, callers);
    Throwable failed = null;
    for (int s = 0; s < owners.length; s++) {
      try {
        mounted.add(opening.get(s).join(), new int[] {s});
      } catch (RuntimeException e) {
        failed = failed == null ? e : failed;
      }
    }
    if (failed != null) {
      mounted.close();
      Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
      if (cause instanceof java.io.UncheckedIOException io) {
        throw io.getCause();
      }
      throw new IOException("mounting the store's shards: " + cause, cause);
    }
    return mounted.sealed();
  }

  private void add(ShardOwner owner, int[] ids) {
    shardOwners.add(owner);
    for (int id : ids) {
      byShard[id] = owner;
    }
  }

  private MountedShards sealed() {
    long max = Integer.MAX_VALUE;
    for (ShardOwner owner : shardOwners) {
      max = Math.min(max, owner.maxWriteBytes());
    }
    maxWriteBytes = (int) max;
    return this;
  }

  /** The object operations over these shards, for the gateways. */
  public ObjectOps objectOps() {
    return objectOps;
  }

  /** The image data path's way to one object piece at a time. */
  public PieceIo pieceIo() {
    return pieceIo;
  }

  /** Cache policy switching and stats. */
  /**
   * The disk I/O backend the shards' queues use ({@code io_uring} or {@code filechannel}; both,
   * comma-separated, if reactors ended up on different ones).
   */
  public String ioBackend() {
    return shardOwners.stream()
        .map(r -> r.queueBackend().label())
        .distinct()
        .sorted()
        .collect(java.util.stream.Collectors.joining(","));
  }

  public StoreAdmin admin() {
    return admin;
  }

  /**
   * Runs work on the shards' owners (a cluster OSD's PGs). Only for the reactor engine: in the
   * classic engine a shard is used under its lock by whichever worker holds it.
   */
  public ShardTasks tasks() {
    return new ShardTasks() {
      @Override
      public int shardCount() {
        return byShard.length;
      }

      @Override
      public boolean run(int shard, java.util.function.Consumer<ShardStore> task) {
        ShardOwner owner = byShard[shard];
        try {
          owner.executor().execute(() -> task.accept(owner.shard(shard)));
          return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
          return false;
        }
      }

      @Override
      public java.util.concurrent.Executor executor(int shard) {
        return byShard[shard].executor();
      }
    };
  }

  /** Element s: the reactor owning shard s. A copy. */
  int[] owners() {
    return owners.clone();
  }

  int shardCount() {
    return byShard.length;
  }

  /** The owner holding shard {@code shard}; null when nothing mounted it. */
  ShardOwner ownerOf(int shard) {
    return byShard[shard];
  }

  /** The shard {@code key} lives on. */
  int shardOf(ObjectKey key) {
    return store.shardOf(key);
  }

  /** Every owner of shards, each once. */
  List<ShardOwner> shardOwners() {
    return shardOwners;
  }

  /**
   * The loops ops are called from, where their replies go: the reactors that own shards, or the
   * classic engine's messengers.
   */
  EventExecutor[] callerLoops() {
    return callerLoops;
  }

  int maxWriteBytes() {
    return maxWriteBytes;
  }

  /** Closes every shard on its reactor (waiting for pending ops); the store stays open. */
  @Override
  public void close() {
    for (ShardOwner owner : shardOwners) {
      owner.close();
    }
    shardOwners.clear();
  }
}
