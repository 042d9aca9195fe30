package io.tidestore.store.api;

import io.tidestore.store.io.IoQueue;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.owner.Owner;
import java.io.IOException;
import java.nio.file.Path;

/**
 * An open store: {@code S} shards fixed at mkfs, owned by this process for as long as it is open.
 * Opening and formatting are the engine's ({@code io.tidestore.store.engine}); this is what the
 * daemon does with a store once it has one.
 *
 * <p>The daemon opens the store once, then mounts each shard on the thread that will own it ({@link
 * #mountShard}), with an {@link IoQueue} created on that thread. R reactors may own S >= R shards;
 * which reactor owns which shard is the daemon's choice, but which shard holds an object is fixed:
 * {@link #shardOf} ({@link Placement}).
 *
 * <p>Thread safety: {@link #shardOf} and the getters are safe from any thread; {@link #mountShard}
 * may run concurrently for different shards, each on its owner thread; {@link #close} runs once,
 * after every mounted shard is closed.
 */
public interface ObjectStore extends AutoCloseable {
  /** The data directory. */
  Path dir();

  int shardCount();

  StoreConfig config();

  /** The memory budget mounted shards are charged to. */
  MemoryBudget budget();

  /** The shard that holds {@code key}. */
  default int shardOf(ObjectKey key) {
    return Placement.shardOf(key, shardCount());
  }

  /**
   * Native bytes one mounted shard holds against the memory budget from mount to close (its I/O
   * buffers), so a daemon can check before mounting anything that its shards fit.
   */
  long shardIoBytes() throws IOException;

  /** Bytes the index reservation of one mounted shard starts with. */
  long shardIndexBytes();

  /**
   * Mounts shard {@code shard} on the calling thread, which becomes its owner; {@code queue} must
   * have been created on this thread and stays the caller's. Blocks while it loads the checkpoint
   * and replays the journal.
   */
  default ShardStore mountShard(int shard, IoQueue queue, ExtentCacheHook cache)
      throws IOException {
    return mountShard(shard, queue, cache, Owner.currentThread());
  }

  /**
   * {@link #mountShard(int, IoQueue, ExtentCacheHook)} for a shard used under {@code owner}'s rule,
   * the same as {@code queue}'s: in the classic engine the holder of the shard's lock (op workers
   * and the commit thread in turn) rather than one thread. Call it under that rule.
   */
  ShardStore mountShard(int shard, IoQueue queue, ExtentCacheHook cache, Owner owner)
      throws IOException;

  /** Releases the data directory; close every mounted shard first. */
  @Override
  void close() throws IOException;
}
