package io.tidestore.osd.store;

import io.tidestore.osd.reactor.IoQueueLoopBinding;
import io.tidestore.osd.reactor.PassHook;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.ShardCacheHook;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The shards one reactor owns, with the I/O queue they share: created, mounted, flushed at the end
 * of every loop pass, reaped when the queue's eventfd fires, and closed, all on the reactor's
 * thread. Everything but {@link #open} and {@link #close} (which hop onto that thread) is
 * reactor-thread only.
 */
final class ReactorShards implements PassHook, ShardOwner {
  private static final Logger LOG = Logger.getLogger(ReactorShards.class.getName());

  private final Reactor reactor;
  private final IoQueue queue;
  private final List<ShardStore> shards;
  private final List<ExtentCache> caches;
  private final IoQueueLoopBinding binding;
  private final long maxWriteBytes;

  /** How often an otherwise idle loop wakes to advance the scrub. */
  static final long SCRUB_TICK_MILLIS = 20;

  private java.util.concurrent.ScheduledFuture<?> scrubTick;

  private ReactorShards(
      Reactor reactor,
      IoQueue queue,
      List<ShardStore> shards,
      List<ExtentCache> caches,
      IoQueueLoopBinding binding) {
    this.reactor = reactor;
    this.queue = queue;
    this.shards = shards;
    this.caches = caches;
    this.binding = binding;
    long max = Long.MAX_VALUE;
    for (ShardStore shard : shards) {
      max = Math.min(max, shard.maxWriteBytes());
    }
    this.maxWriteBytes = max;
  }

  @Override
  public String name() {
    return reactor.name();
  }

  @Override
  public io.netty.util.concurrent.EventExecutor executor() {
    return reactor.loop();
  }

  @Override
  public boolean acksOnFinisher() {
    return false;
  }

  @Override
  public void acknowledge(Runnable ack) {
    ack.run();
  }

  /** The backend of this reactor's I/O queue. */
  @Override
  public IoBackend queueBackend() {
    return queue.backend();
  }

  /**
   * Creates the queue and mounts {@code shardIds} on {@code reactor}'s thread; blocks until done.
   */
  static ReactorShards open(
      Reactor reactor,
      ObjectStore store,
      int[] shardIds,
      IoQueueConfig queueConfig,
      ShardCaches cacheConfig)
      throws IOException {
    try {
      ReactorShards opened =
          reactor
              .loop()
              .submit(() -> mountOnLoop(reactor, store, shardIds, queueConfig, cacheConfig))
              .get(10, TimeUnit.MINUTES);
      reactor.addPassHook(opened).sync();
      return opened;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException(
          "mounting shards on " + reactor.name() + ": " + e.getCause(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("mounting shards on " + reactor.name() + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while mounting shards", e);
    }
  }

  /**
   * On the reactor: the queue, its binding to the loop (eventfd, or the fallback's listener), the
   * shards' caches with their memory registered with the queue, then the shards.
   */
  private static ReactorShards mountOnLoop(
      Reactor reactor,
      ObjectStore store,
      int[] shardIds,
      IoQueueConfig queueConfig,
      ShardCaches cacheConfig)
      throws IOException {
    // Never DEFER_TASKRUN, as the classic engine's rings (IoThreadQueue): it leaves completions'
    // work queued in the kernel until the owner enters with GETEVENTS, and the reactor enters only
    // when the ring's eventfd fires, which the kernel signals only as that queue turns non-empty.
    // The thrasher caught a reactor asleep with two finished ops of its ring never posted (fdinfo
    // SqTail 2411, CqTail 2409) and its journal stalled for minutes, every write of its PGs with
    // it.
    IoQueue queue = IoQueues.create(queueConfig.withDeferTaskrun(false));
    List<ShardStore> mounted = new ArrayList<>();
    List<ExtentCache> caches = new ArrayList<>();
    IoQueueLoopBinding binding = null;
    try {
      LOG.info(reactor.name() + " I/O: " + queue.describe());
      binding = IoQueueLoopBinding.bind(reactor.loop(), queue);
      if (cacheConfig.enabled()) {
        List<MemorySegment> regions = new ArrayList<>();
        for (int id : shardIds) {
          ExtentCache cache = cacheConfig.open(id);
          caches.add(cache);
          regions.addAll(Arrays.asList(cache.regions()));
        }
        queue.registerBuffers(regions.toArray(MemorySegment[]::new));
      }
      for (int i = 0; i < shardIds.length; i++) {
        ExtentCacheHook hook =
            caches.isEmpty()
                ? ExtentCacheHook.NONE
                : new ShardCacheHook(caches.get(i), cacheConfig.writeMaxBlocks());
        mounted.add(store.mountShard(shardIds[i], queue, hook));
      }
    } catch (IOException | RuntimeException e) {
      mounted.forEach(ShardStore::close);
      if (binding != null) {
        binding.close();
      }
      queue.close();
      caches.forEach(ExtentCache::close);
      throw e;
    }
    LOG.info(
        reactor.name()
            + " mounted shards "
            + Arrays.toString(shardIds)
            + (caches.isEmpty()
                ? ", no extent cache"
                : ", extent cache "
                    + io.tidestore.store.memory.MemoryBudget.formatBytes(
                        cacheConfig.perShardBytes())
                    + " per shard ("
                    + cacheConfig.policy()
                    + ")"));
    return new ReactorShards(reactor, queue, mounted, caches, binding);
  }

  /** The shards' caches (stats, runtime policy switch), in the order of the shards. */
  @Override
  public List<ExtentCache> caches() {
    return caches;
  }

  /** Shard {@code id}'s cache, which this reactor owns. */
  @Override
  public ExtentCache cache(int id) {
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i).shard() == id) {
        return caches.get(i);
      }
    }
    throw new IllegalArgumentException(reactor.name() + " does not own shard " + id);
  }

  /**
   * The largest single write every owned shard accepts (fixed by the store's geometry, read once at
   * mount on the reactor). Any thread.
   */
  @Override
  public long maxWriteBytes() {
    return maxWriteBytes;
  }

  /** Shard {@code id}, which this reactor owns. Reactor thread only. */
  @Override
  public ShardStore shard(int id) {
    for (ShardStore shard : shards) {
      if (shard.shard() == id) {
        return shard;
      }
    }
    throw new IllegalArgumentException(reactor.name() + " does not own shard " + id);
  }

  Reactor reactor() {
    return reactor;
  }

  /** Puts each owned shard's stats at its index in {@code out}. Reactor thread only. */
  @Override
  public void statsInto(ShardStats[] out) {
    for (ShardStore shard : shards) {
      out[shard.shard()] = shard.stats();
    }
  }

  /**
   * Sets every owned shard's scrub schedule, each at {@code bytesPerSecond}, and wakes the loop
   * every {@link #SCRUB_TICK_MILLIS} ms so a scrub advances (and a scheduled one starts) on an idle
   * reactor too: the shards' work runs in the loop-pass hook, and an idle loop makes no passes.
   * Reactor thread only.
   */
  @Override
  public void scrubSchedule(long intervalNanos, long bytesPerSecond) {
    for (ShardStore shard : shards) {
      shard.scrubSchedule(intervalNanos, bytesPerSecond);
    }
    if (scrubTick == null) {
      Runnable wake = () -> {};
      scrubTick =
          reactor
              .loop()
              .scheduleAtFixedRate(
                  wake, SCRUB_TICK_MILLIS, SCRUB_TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Starts a scrub pass on every owned shard; adds each one's number to the list it went to. */
  @Override
  public void startScrub(List<Integer> started, List<Integer> alreadyRunning) {
    for (ShardStore shard : shards) {
      (shard.startScrub() ? started : alreadyRunning).add(shard.shard());
    }
  }

  /** Gives each owned shard's journal its observer. Reactor thread only. */
  @Override
  public void observeJournals(IntFunction<JournalObserver> observers) {
    for (ShardStore shard : shards) {
      shard.observeJournal(observers.apply(shard.shard()));
    }
  }

  /**
   * One journal submission per pass: every shard seals and prepares its writes (and its reads and
   * the cleaner's I/O), and the queue they share submits them all with one system call.
   */
  @Override
  public void endOfPass() {
    queue.beginBatch();
    try {
      long now = System.nanoTime(); // one clock read for every shard of the pass
      for (ShardStore shard : shards) {
        shard.endOfPass(now);
      }
    } finally {
      try {
        queue.endBatch();
      } catch (IOException e) {
        // As when a shard submits alone (LogShard.submitQuietly): the SQEs stay published and go
        // with the queue's next enter; only a broken ring fails here.
        LOG.log(Level.SEVERE, reactor.name() + ": I/O submit failed", e);
      }
    }
  }

  /** Unhooks, closes the shards (each waits for its pending ops) and the queue, on the reactor. */
  @Override
  public void close() {
    try {
      if (scrubTick != null) {
        scrubTick.cancel(false);
      }
      reactor.removePassHook(this).sync();
      reactor
          .loop()
          .submit(
              () -> {
                for (ShardStore shard : shards) {
                  try {
                    shard.close();
                  } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing shard " + shard.shard() + " failed", e);
                  }
                }
                binding.close();
                queue.close();
                caches.forEach(ExtentCache::close);
              })
          .sync();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
