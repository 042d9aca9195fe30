package io.tidestore.osd.store;

import io.tidestore.osd.reactor.CompletionFdWatch;
import io.tidestore.osd.reactor.PassHook;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.IoQueues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The shards one reactor owns, with the I/O queue they share: created, mounted, flushed at the end
 * of every loop pass, reaped when the queue's eventfd fires, and closed, all on the reactor's
 * thread. Everything but {@link #open} and {@link #close} (which hop onto that thread) is
 * reactor-thread only.
 */
final class ReactorShards implements PassHook {
  private static final Logger LOG = Logger.getLogger(ReactorShards.class.getName());

  private final Reactor reactor;
  private final IoQueue queue;
  private final List<ShardStore> shards;
  private CompletionFdWatch watch;

  private ReactorShards(Reactor reactor, IoQueue queue, List<ShardStore> shards) {
    this.reactor = reactor;
    this.queue = queue;
    this.shards = shards;
  }

  /**
   * Creates the queue and mounts {@code shardIds} on {@code reactor}'s thread; blocks until done.
   */
  static ReactorShards open(
      Reactor reactor, ObjectStore store, int[] shardIds, IoQueueConfig queueConfig)
      throws IOException {
    try {
      ReactorShards opened =
          reactor
              .loop()
              .submit(() -> mountOnLoop(reactor, store, shardIds, queueConfig))
              .get(10, TimeUnit.MINUTES);
      reactor.addPassHook(opened).sync();
      if (opened.queue.completionFd() >= 0) {
        opened.watch =
            CompletionFdWatch.watch(reactor, opened.queue.completionFd(), opened::reap)
                .get(10, TimeUnit.SECONDS);
      } else {
        opened.queue.setCompletionListener(() -> reactor.loop().execute(opened::reap));
      }
      return opened;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException(
          "mounting shards on reactor-" + reactor.index() + ": " + e.getCause(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("mounting shards on reactor-" + reactor.index() + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while mounting shards", e);
    }
  }

  private static ReactorShards mountOnLoop(
      Reactor reactor, ObjectStore store, int[] shardIds, IoQueueConfig queueConfig)
      throws IOException {
    IoQueue queue = IoQueues.create(queueConfig);
    List<ShardStore> mounted = new ArrayList<>();
    try {
      for (int id : shardIds) {
        mounted.add(store.mountShard(id, queue, ExtentCacheHook.NONE));
      }
    } catch (IOException | RuntimeException e) {
      mounted.forEach(ShardStore::close);
      queue.close();
      throw e;
    }
    LOG.info(
        "reactor-" + reactor.index() + " mounted shards " + java.util.Arrays.toString(shardIds));
    return new ReactorShards(reactor, queue, mounted);
  }

  /** Shard {@code id}, which this reactor owns. Reactor thread only. */
  ShardStore shard(int id) {
    for (ShardStore shard : shards) {
      if (shard.shard() == id) {
        return shard;
      }
    }
    throw new IllegalArgumentException("reactor-" + reactor.index() + " does not own shard " + id);
  }

  Reactor reactor() {
    return reactor;
  }

  /** One journal submission per pass: every shard seals and writes its batch. */
  @Override
  public void endOfPass() {
    for (ShardStore shard : shards) {
      shard.endOfPass();
    }
  }

  private void reap() {
    queue.poll();
  }

  /** Unhooks, closes the shards (each waits for its pending ops) and the queue, on the reactor. */
  void close() {
    if (watch != null) {
      watch.close();
    }
    try {
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
                queue.close();
              })
          .sync();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
