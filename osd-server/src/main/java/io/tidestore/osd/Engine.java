package io.tidestore.osd;

import io.tidestore.osd.EngineSettings.EngineKind;
import io.tidestore.osd.classic.ClassicThreads;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.MountedShards;
import io.tidestore.osd.store.ShardCaches;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.io.IoQueueConfig;
import java.io.IOException;
import java.util.List;

/**
 * The running threads of one engine: the loops the listeners accept and decode on ({@link
 * #network}), every Netty loop group ({@link #loops}: the reactors; or the classic engine's {@code
 * msgr} and {@code io} loops), and the classic engine's op workers, commit thread and finisher
 * ({@link #classic}, null for the reactor engine). {@link #mount} puts the store's shards on them;
 * everything above (protocol and NBD handlers, {@code MountedShards}' ops, the store) is the same
 * code in both engines.
 *
 * @param loops every loop group, in the startup log's order; the reactor engine's only group is the
 *     reactors, which own the shards
 */
record Engine(EngineKind kind, Reactors network, List<Reactors> loops, ClassicThreads classic)
    implements AutoCloseable {

  /** Mounts the store's shards on the threads that own them in this engine. */
  MountedShards mount(ObjectStore store, IoQueueConfig queues, ShardCaches caches)
      throws IOException {
    return classic == null
        ? MountedShards.mount(store, network, queues, caches)
        : MountedShards.mountClassic(store, classic, network, queues, caches);
  }

  /** One line for the startup log: the engine and each group's threads. */
  String describe() {
    StringBuilder line = new StringBuilder(kind.label()).append(" engine:");
    for (Reactors group : loops) {
      line.append(" [").append(group.describe()).append(']');
      if (classic != null && group == network) {
        line.append(' ').append(classic.describe());
      }
    }
    return line.toString();
  }

  /** Stops the messengers first (no new ops), then the op threads, then the I/O loops. */
  @Override
  public void close() {
    network.close();
    if (classic != null) {
      classic.close();
    }
    for (Reactors group : loops) {
      if (group != network) {
        group.close();
      }
    }
  }
}
