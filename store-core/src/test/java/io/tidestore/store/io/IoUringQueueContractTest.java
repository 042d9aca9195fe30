package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The contract against the io_uring backend, as {@link IoQueues#create} builds it with {@code
 * IO_URING} demanded: no silent fallback can pass.
 */
class IoUringQueueContractTest extends IoQueueContractTest {
  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoQueues.create(config.withBackend(IoQueueConfig.Backend.IO_URING));
  }

  @Override
  protected IoBackend expectedBackend() {
    return IoBackend.IO_URING;
  }

  @Override
  protected boolean registersBuffers() {
    return true;
  }

  @Test
  void exposesAnEventfdAndRefusesAListener() {
    assertTrue(queue.completionFd() >= 0, queue.describe());
    assertThrows(IllegalStateException.class, () -> queue.setCompletionListener(() -> {}));
  }
}
