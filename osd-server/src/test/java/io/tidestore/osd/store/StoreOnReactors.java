package io.tidestore.osd.store;

import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.memory.MemoryBudget;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A store served by two unpinned epoll reactors with 1 MiB extent caches, as tests of ops over the
 * real store need it: with two reactors, some shards are always reached through a hop. Closes the
 * shards, the reactors and the store, in that order.
 */
public record StoreOnReactors(ObjectStore store, Reactors reactors, MountedShards shards)
    implements AutoCloseable {

  /** Opens the store made in {@code data} and mounts its shards on two new reactors. */
  public static StoreOnReactors open(Path data, StoreConfig config) throws IOException {
    ObjectStore store = LogStore.open(data, config);
    Reactors reactors = null;
    try {
      reactors =
          Reactors.start(
              Transport.EPOLL,
              new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
              Optional.empty());
      MountedShards shards =
          MountedShards.mount(
              store,
              reactors,
              IoQueueConfig.defaults(),
              new ShardCaches(1 << 20, PolicyConfig.daemonDefault(), new MemoryBudget(64L << 20)));
      return new StoreOnReactors(store, reactors, shards);
    } catch (IOException | RuntimeException e) {
      if (reactors != null) {
        reactors.close();
      }
      store.close();
      throw e;
    }
  }

  /** The object operations over the mounted shards. */
  public ObjectOps ops() {
    return shards.objectOps();
  }

  /** The image data path's way into the mounted shards. */
  public PieceIo pieces() {
    return shards.pieceIo();
  }

  @Override
  public void close() throws IOException {
    try {
      shards.close();
    } finally {
      try {
        reactors.close();
      } finally {
        store.close();
      }
    }
  }
}
