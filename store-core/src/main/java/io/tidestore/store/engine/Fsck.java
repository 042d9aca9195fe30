package io.tidestore.store.engine;

import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.shard.ShardFsck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Offline check of a whole store ({@code tidestore fsck}): opens it (taking the data directory's
 * lock, so it cannot run under a live daemon) and checks every shard ({@link ShardFsck}) with plain
 * file I/O. Runs on the calling thread.
 */
public final class Fsck {
  private Fsck() {}

  /** Checks the store in {@code dir}, printing findings; returns the number of faults. */
  public static int check(Path dir, Consumer<String> out) throws IOException {
    int faults = 0;
    try (LogStore store = LogStore.open(dir, StoreConfig.defaults());
        IoQueue queue =
            IoQueues.create(
                IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.FILE_CHANNEL))) {
      out.accept("fsck " + dir + ": " + store.shardCount() + " shards");
      for (int s = 0; s < store.shardCount(); s++) {
        faults += ShardFsck.check(store.layout().space(s), queue, out);
      }
    }
    out.accept(faults == 0 ? "fsck: clean" : "fsck: " + faults + " fault(s) found");
    return faults;
  }
}
