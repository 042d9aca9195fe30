package io.tidestore.osd;

import io.tidestore.osd.EngineSettings.EngineKind;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.ShardQueueFactory;
import java.util.List;

/**
 * The running threads of one engine: the loops the listeners accept and decode on ({@link
 * #network}), the loops that own the store shards and run ops ({@link #shardOwners}; the same loops
 * in the reactor engine), and how those owners get their I/O queue. Everything above (protocol and
 * NBD handlers, {@code MountedShards}, the store) is the same code in both engines.
 *
 * @param groups every thread group, closed in this order
 */
record Engine(
    EngineKind kind,
    Reactors network,
    Reactors shardOwners,
    ShardQueueFactory queues,
    List<Reactors> groups)
    implements AutoCloseable {

  /** One line for the startup log: the engine and each group's threads. */
  String describe() {
    StringBuilder line = new StringBuilder(kind.label()).append(" engine:");
    for (Reactors group : groups) {
      line.append(" [").append(group.describe()).append(']');
    }
    return line.toString();
  }

  @Override
  public void close() {
    for (Reactors group : groups) {
      group.close();
    }
  }
}
