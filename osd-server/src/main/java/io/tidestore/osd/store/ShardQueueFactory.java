package io.tidestore.osd.store;

import io.tidestore.osd.reactor.Reactor;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;

/**
 * Makes the {@link IoQueue} that the shards of one owning loop share: the engine seam on the I/O
 * side. The reactor engine's shards own their ring ({@link #OWN_RING}); the classic engine's op
 * workers get a queue that hands submissions to a separate I/O thread owning the ring.
 */
@FunctionalInterface
public interface ShardQueueFactory {
  /** A ring created on, and reaped by, the owning loop itself (the reactor engine). */
  ShardQueueFactory OWN_RING = (owner, config) -> IoQueues.create(config);

  /**
   * Called on {@code owner}'s thread, which becomes the returned queue's owner.
   *
   * @throws IOException the queue could not be created
   */
  IoQueue create(Reactor owner, IoQueueConfig config) throws IOException;
}
