package io.tidestore.osd.store;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.classic.ClassicThreads;
import io.tidestore.osd.classic.CommitThread;
import io.tidestore.osd.classic.Finisher;
import io.tidestore.osd.classic.PlacementGroup;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.ShardCacheHook;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.handoff.IoThreadQueue;
import io.tidestore.store.owner.Owner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One store shard in the classic engine: its placement group (ops in order under the PG lock, on
 * the op shard the PG hashes to), its I/O queue in front of an {@code io} loop's ring, its extent
 * cache, and its slot on the commit thread. The shard, the queue and the cache are mounted under
 * the PG lock and accept only the thread holding it: op workers stage under it, the commit thread
 * ({@link #commit}) delivers completions and seals batches under it, so the store's single-owner
 * rule becomes "one thread at a time".
 */
final class ClassicShard implements ShardOwner, CommitThread.Unit {
  private static final Logger LOG = Logger.getLogger(ClassicShard.class.getName());

  private final PlacementGroup pg;
  private final CommitThread commitThread;
  private final Finisher finisher;
  private final IoThreadQueue queue;
  private final ShardStore shard;
  private final List<ExtentCache> caches;
  private final long maxWriteBytes;
  private final IoBackend backend;
  private CommitThread.Slot slot;

  private ClassicShard(
      PlacementGroup pg,
      ClassicThreads threads,
      IoThreadQueue queue,
      ShardStore shard,
      List<ExtentCache> caches) {
    this.pg = pg;
    this.commitThread = threads.commit();
    this.finisher = threads.finisher();
    this.queue = queue;
    this.shard = shard;
    this.caches = caches;
    this.maxWriteBytes = shard.maxWriteBytes();
    this.backend = queue.backend();
  }

  /**
   * Mounts store shard {@code id} on a worker of its op shard, under the PG lock, then registers it
   * with the commit thread. Completes once mounted; several mount in parallel, one per op shard.
   */
  static CompletableFuture<ClassicShard> open(
      ClassicThreads threads,
      ObjectStore store,
      int id,
      IoQueueConfig queueConfig,
      ShardCaches cacheConfig) {
    PlacementGroup pg = threads.placementGroup(id);
    return CompletableFuture.supplyAsync(
            () -> {
              try {
                return mountUnderLock(pg, threads, store, queueConfig, cacheConfig);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            pg.executor())
        .thenApply(ClassicShard::startCommitting);
  }

  private static ClassicShard mountUnderLock(
      PlacementGroup pg,
      ClassicThreads threads,
      ObjectStore store,
      IoQueueConfig queueConfig,
      ShardCaches cacheConfig)
      throws IOException {
    int id = pg.id();
    Owner owner = pg.owner();
    IoThreadQueue queue = IoThreadQueue.open(threads.ioThreadFor(id), queueConfig, owner);
    ExtentCache cache = null;
    try {
      LOG.info("PG " + id + " (op shard " + pg.opShard() + ") I/O: " + queue.describe());
      if (cacheConfig.enabled()) {
        cache = cacheConfig.open(id);
        cache.ownedBy(owner);
        queue.registerBuffers(cache.regions());
      }
      ExtentCacheHook hook =
          cache == null
              ? ExtentCacheHook.NONE
              : new ShardCacheHook(cache, cacheConfig.writeMaxBlocks());
      ShardStore mounted = store.mountShard(id, queue, hook, owner);
      LOG.info(
          "PG "
              + id
              + " mounted on op shard "
              + pg.opShard()
              + (cache == null
                  ? ", no extent cache"
                  : ", extent cache "
                      + io.tidestore.store.memory.MemoryBudget.formatBytes(
                          cacheConfig.perShardBytes())
                      + " ("
                      + cacheConfig.policy()
                      + ")"));
      return new ClassicShard(
          pg, threads, queue, mounted, cache == null ? List.of() : List.of(cache));
    } catch (IOException | RuntimeException e) {
      queue.close();
      if (cache != null) {
        cache.close();
      }
      throw e;
    }
  }

  /** From now on every op and every completion wakes the commit thread for this shard. */
  private ClassicShard startCommitting() {
    slot = commitThread.register(pg.lock(), this);
    CommitThread.Slot registered = slot;
    queue.setCompletionListener(registered::wake);
    pg.afterEachOp(registered::wake);
    return this;
  }

  /**
   * The commit thread's pass, under the PG lock: the completions the I/O thread handed back are
   * delivered (durable records apply, their acknowledgements go to the finisher), then the shard's
   * end of pass seals what the workers staged since the last one and submits it, with the reads
   * they prepared, to the I/O thread in one hand-off.
   */
  @Override
  public void commit(long nowNanos) {
    queue.poll();
    shard.endOfPass(nowNanos);
  }

  @Override
  public String name() {
    return "PG " + pg.id();
  }

  @Override
  public EventExecutor executor() {
    return pg.executor();
  }

  @Override
  public boolean acksOnFinisher() {
    return commitThread.isCurrent();
  }

  @Override
  public void acknowledge(Runnable ack) {
    finisher.execute(ack);
  }

  @Override
  public IoBackend queueBackend() {
    return backend;
  }

  @Override
  public long maxWriteBytes() {
    return maxWriteBytes;
  }

  @Override
  public ShardStore shard(int id) {
    if (id != pg.id()) {
      throw new IllegalArgumentException(name() + " does not hold shard " + id);
    }
    return shard;
  }

  @Override
  public List<ExtentCache> caches() {
    return caches;
  }

  @Override
  public ExtentCache cache(int id) {
    if (id != pg.id() || caches.isEmpty()) {
      throw new IllegalArgumentException(name() + " has no cache of shard " + id);
    }
    return caches.get(0);
  }

  @Override
  public void statsInto(ShardStats[] out) {
    out[shard.shard()] = shard.stats();
  }

  /** The commit thread's ticks advance the scrub; nothing to schedule here. */
  @Override
  public void scrubSchedule(long intervalNanos, long bytesPerSecond) {
    shard.scrubSchedule(intervalNanos, bytesPerSecond);
  }

  @Override
  public void startScrub(List<Integer> started, List<Integer> alreadyRunning) {
    (shard.startScrub() ? started : alreadyRunning).add(shard.shard());
  }

  @Override
  public void observeJournals(IntFunction<JournalObserver> observers) {
    shard.observeJournal(observers.apply(shard.shard()));
  }

  /**
   * Under the PG lock on a worker: leaves the commit thread, closes the shard (waiting for its
   * pending ops), the queue and the cache. Blocks until done.
   */
  @Override
  public void close() {
    try {
      CompletableFuture.runAsync(this::closeUnderLock, pg.executor()).join();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "closing " + name() + " failed", e);
    }
  }

  private void closeUnderLock() {
    if (slot != null) {
      slot.close();
    }
    try {
      shard.close();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "closing shard " + pg.id() + " failed", e);
    }
    queue.close();
    caches.forEach(ExtentCache::close);
  }
}
