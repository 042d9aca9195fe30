package io.tidestore.osd.store;

import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.shard.ShardAssignment;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.io.IoQueueConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The store's shards, each mounted on the reactor that owns it ({@link ShardAssignment}), and the
 * ways in: {@link #objectOps} for the gateways, {@link #pieceIo} for the image data path, {@link
 * #admin} for the cache policy and stats. Protocol objects live in pool {@link
 * io.tidestore.osd.ops.ObjectNames#POOL}.
 *
 * <p>Threading: {@link #mount} and {@link #close} from one thread at startup and shutdown; the
 * lookups are fixed once mounted and safe from any thread.
 */
public final class MountedShards implements AutoCloseable {
  private final ObjectStore store;
  private final int[] owners;
  private final List<ReactorShards> reactors = new ArrayList<>();
  private final ReactorShards[] byShard;
  private int maxWriteBytes; // the smallest of every shard's; set by mount before the ops escape
  private final StoreObjectOps objectOps;
  private final StorePieceIo pieceIo;
  private final StoreAdmin admin;

  private MountedShards(ObjectStore store, int[] owners) {
    this.store = store;
    this.owners = owners;
    this.byShard = new ReactorShards[owners.length];
    ShardRouter router = new ShardRouter(this);
    this.objectOps = new StoreObjectOps(this, router);
    this.pieceIo = new StorePieceIo(this, router);
    this.admin = new StoreAdmin(this);
  }

  /** Mounts every shard of {@code store} on its owning reactor; blocks until all are mounted. */
  static MountedShards mount(
      ObjectStore store, Reactors reactors, IoQueueConfig queues, ShardCaches caches)
      throws IOException {
    return mount(store, reactors, queues, ShardQueueFactory.OWN_RING, caches);
  }

  /**
   * Mounts every shard of {@code store} on the loop of {@code reactors} that owns it (the reactors
   * themselves, or the classic engine's op workers), each loop's shards sharing one queue from
   * {@code queueFactory}; blocks until all are mounted.
   */
  public static MountedShards mount(
      ObjectStore store,
      Reactors reactors,
      IoQueueConfig queues,
      ShardQueueFactory queueFactory,
      ShardCaches caches)
      throws IOException {
    int[] owners = ShardAssignment.roundRobin(store.shardCount(), reactors.size());
    MountedShards mounted = new MountedShards(store, owners);
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
        mounted.reactors.add(shards);
        for (int id : ids) {
          mounted.byShard[id] = shards;
        }
      }
      long max = Integer.MAX_VALUE;
      for (ReactorShards shards : mounted.reactors) {
        max = Math.min(max, shards.maxWriteBytes());
      }
      mounted.maxWriteBytes = (int) max;
      return mounted;
    } catch (IOException | RuntimeException e) {
      mounted.close();
      throw e;
    }
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
    return reactors.stream()
        .map(r -> r.queueBackend().label())
        .distinct()
        .sorted()
        .collect(java.util.stream.Collectors.joining(","));
  }

  public StoreAdmin admin() {
    return admin;
  }

  /** Element s: the reactor owning shard s. A copy. */
  int[] owners() {
    return owners.clone();
  }

  int shardCount() {
    return byShard.length;
  }

  /** The reactor's shards holding shard {@code shard}; null when nothing mounted it. */
  ReactorShards ownerOf(int shard) {
    return byShard[shard];
  }

  /** The shard {@code key} lives on. */
  int shardOf(ObjectKey key) {
    return store.shardOf(key);
  }

  /** Every reactor that owns shards, each once. */
  List<ReactorShards> reactors() {
    return reactors;
  }

  int maxWriteBytes() {
    return maxWriteBytes;
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
