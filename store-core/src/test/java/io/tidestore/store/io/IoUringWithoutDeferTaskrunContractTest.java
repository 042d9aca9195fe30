package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The contract against io_uring without DEFER_TASKRUN (completions posted by the kernel). */
class IoUringWithoutDeferTaskrunContractTest extends IoQueueContractTest {
  IoUringWithoutDeferTaskrunContractTest() {
    super(IoBackend.IO_URING, true);
  }

  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoQueues.create(
        config.withBackend(IoQueueConfig.Backend.IO_URING).withDeferTaskrun(false));
  }

  @Test
  void doesNotUseDeferTaskrun() {
    assertFalse(queue.describe().contains("DEFER_TASKRUN"), queue.describe());
  }
}
