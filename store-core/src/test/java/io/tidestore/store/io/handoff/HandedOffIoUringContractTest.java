package io.tidestore.store.io.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueueConfig;
import org.junit.jupiter.api.Test;

/** The contract through the hand-off to an io_uring ring (IO_URING demanded: no fallback). */
class HandedOffIoUringContractTest extends HandedOffContractTest {
  HandedOffIoUringContractTest() {
    super(IoBackend.IO_URING, true);
  }

  @Override
  protected IoQueueConfig ringConfig(IoQueueConfig config) {
    return config.withBackend(IoQueueConfig.Backend.IO_URING);
  }

  @Test
  void wakesItsOwnerThroughTheListenerNotAnFd() {
    assertEquals(-1, queue.completionFd());
    assertTrue(queue.describe().contains("submitted and reaped on io-contract"), queue.describe());
  }
}
