package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The contract against io_uring in poll mode: await() spins on the CQ instead of sleeping. */
class IoUringPollModeContractTest extends IoQueueContractTest {
  IoUringPollModeContractTest() {
    super(IoBackend.IO_URING, true);
  }

  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoQueues.create(config.withBackend(IoQueueConfig.Backend.IO_URING).withPollMode(true));
  }

  @Test
  void saysItSpins() {
    assertTrue(queue.describe().contains("poll mode"), queue.describe());
  }
}
