package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The contract against the FileChannel backend. */
class FileChannelQueueContractTest extends IoQueueContractTest {
  FileChannelQueueContractTest() {
    super(IoBackend.FILE_CHANNEL, false);
  }

  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoQueues.create(config.withBackend(IoQueueConfig.Backend.FILE_CHANNEL));
  }

  @Test
  void hasNoCompletionFdAndWakesThroughTheListener() throws Exception {
    assertEquals(-1, queue.completionFd());
    CountDownLatch woken = new CountDownLatch(1);
    queue.setCompletionListener(woken::countDown);
    MemorySegment buffer = buffer().asSlice(0, 4096);
    Recorder done = new Recorder();
    queue.write(file, 0, buffer, done, 1);
    queue.submit();
    // The listener runs on a worker thread; only then is the completion ready to poll.
    assertEquals(true, woken.await(20, TimeUnit.SECONDS), "listener called");
    assertEquals(1, queue.poll());
    assertEquals(4096, done.result(1));
    assertThrows(
        IllegalArgumentException.class,
        () -> queue.registerBuffers(MemorySegment.ofArray(new byte[8])));
  }
}
