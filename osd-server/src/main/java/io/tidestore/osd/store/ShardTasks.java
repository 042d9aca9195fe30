package io.tidestore.osd.store;

import io.tidestore.store.api.ShardStore;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Work that must run where a shard lives, for layers that keep state per shard (a cluster OSD's
 * PGs): on the shard's owner thread, with the shard. What runs there must not block; the shard's
 * completions come back on that thread too.
 */
public interface ShardTasks {
  int shardCount();

  /**
   * Runs {@code task} with shard {@code shard} on its owner thread; false (and nothing runs) when
   * the owner has stopped.
   */
  boolean run(int shard, Consumer<ShardStore> task);

  /** The owner thread's executor of shard {@code shard}, to come back to it after other work. */
  Executor executor(int shard);
}
