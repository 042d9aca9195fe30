package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The contract against the io_uring backend, as {@link IoQueues#create} builds it with {@code
 * IO_URING} demanded: no silent fallback can pass.
 */
class IoUringQueueContractTest extends IoQueueContractTest {
  IoUringQueueContractTest() {
    super(IoBackend.IO_URING, true);
  }

  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoQueues.create(config.withBackend(IoQueueConfig.Backend.IO_URING));
  }

  @Test
  void usesTheSetupFlagsThisKernelOffers() {
    // Kernel 6.x: DEFER_TASKRUN (6.1) needs SINGLE_ISSUER (6.0); both must have been accepted.
    assertTrue(queue.describe().contains("SINGLE_ISSUER"), queue.describe());
    assertTrue(queue.describe().contains("DEFER_TASKRUN"), queue.describe());
    assertTrue(queue.describe().contains("registered files on"), queue.describe());
  }

  @Test
  void aRefusedBufferRegistrationLeavesIoWorkingUnregistered() throws IOException {
    // Memory the kernel cannot pin (nothing is mapped at 4 KiB): registration fails (EFAULT),
    // as it would under RLIMIT_MEMLOCK (ENOMEM), and the queue carries on without fixed buffers.
    MemorySegment unmapped = MemorySegment.ofAddress(4096).reinterpret(4096);
    assertFalse(queue.registerBuffers(unmapped));
    assertTrue(queue.describe().contains("registered buffers none"), queue.describe());
    MemorySegment buffer = buffer().asSlice(0, 4096);
    buffer.fill((byte) 5);
    Recorder done = new Recorder();
    queue.writeThenSync(file, 0, buffer, done, 1);
    done.awaitDeliveries(queue, 1);
    assertEquals(4096, done.result(1));
    buffer.fill((byte) 0);
    queue.read(file, 0, buffer, done, 2);
    done.awaitDeliveries(queue, 2);
    assertEquals(4096, done.result(2));
    assertEquals(5, buffer.get(ValueLayout.JAVA_BYTE, 4095));
  }

  @Test
  void aRegionRegisteredWhileWritesAreInFlightCarriesFixedWritesUntilDropped() throws IOException {
    MemorySegment cacheLike = buffer().asSlice(0, 2 * 4096);
    assertTrue(queue.registerBuffers(cacheLike), "the set registered at start");
    MemorySegment first = buffer().asSlice(0, 4096);
    first.fill((byte) 1);
    Recorder done = new Recorder();
    queue.writeDurable(file, 0, first, done, 1);
    queue.submit();
    // Registered with a write in flight (a shard mounting on a running reactor), beside the set.
    MemorySegment journal = buffer().asSlice(0, 4 * 4096);
    int slot = queue.registerBuffer(journal);
    assertTrue(slot >= 0, "sparse buffer table (Linux 5.19): " + queue.describe());
    assertTrue(queue.describe().contains("registered buffers 2 regions"), queue.describe());
    // A write from the middle of the region goes out as WRITE_FIXED naming its slot: a wrong slot
    // or range would fail with EFAULT, a wrong translation would land other bytes.
    MemorySegment fixed = journal.asSlice(4096, 2 * 4096);
    fixed.fill((byte) 9);
    queue.writeDurable(file, 4096, fixed, done, 2);
    queue.submit();
    done.awaitDeliveries(queue, 2);
    assertEquals(4096, done.result(1));
    assertEquals(2 * 4096, done.result(2));
    queue.unregisterBuffer(slot);
    assertTrue(queue.describe().contains("registered buffers 1 regions"), queue.describe());
    // Dropped: the same memory now goes out unregistered, and still works.
    fixed.fill((byte) 4);
    queue.writeDurable(file, 4096, fixed, done, 3);
    queue.submit();
    done.awaitDeliveries(queue, 3);
    assertEquals(2 * 4096, done.result(3));
    MemorySegment back = buffer().asSlice(0, 3 * 4096);
    queue.read(file, 0, back, done, 4);
    queue.submit();
    done.awaitDeliveries(queue, 4);
    assertEquals(3 * 4096, done.result(4));
    assertEquals(1, back.get(ValueLayout.JAVA_BYTE, 4095));
    assertEquals(4, back.get(ValueLayout.JAVA_BYTE, 4096));
    assertEquals(4, back.get(ValueLayout.JAVA_BYTE, 3 * 4096 - 1));
    assertThrows(IllegalArgumentException.class, () -> queue.unregisterBuffer(slot));
  }

  @Test
  void aBatchHoldsSubmissionsUntilItsOutermostEnd() throws IOException {
    MemorySegment buffer = buffer().asSlice(0, 2 * 4096);
    buffer.fill((byte) 7);
    Recorder done = new Recorder();
    queue.beginBatch();
    queue.beginBatch(); // batches nest, as a pass's batch around a shard's own
    queue.write(file, 0, buffer.asSlice(0, 4096), done, 1);
    assertEquals(0, queue.submit(), "held inside the batch");
    // A misaligned O_DIRECT write fails as it is issued, so its completion would be ready for the
    // next poll had anything reached the kernel.
    queue.write(file, 4096, buffer.asSlice(1, 4096), done, 2);
    queue.submit();
    queue.endBatch();
    assertEquals(0, queue.poll(), "nothing has reached the kernel yet");
    assertEquals(0, done.deliveries);
    queue.endBatch(); // submits both
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (done.deliveries < 2 && System.nanoTime() - deadline < 0) {
      queue.poll(); // reaps only: it never submits what a batch holds
      Thread.onSpinWait();
    }
    assertEquals(4096, done.result(1));
    assertEquals(Errno.EINVAL, done.error(2).errno());
    assertThrows(IllegalStateException.class, queue::endBatch);
  }

  @Test
  void exposesAnEventfdAndRefusesAListener() {
    assertTrue(queue.completionFd() >= 0, queue.describe());
    assertThrows(IllegalStateException.class, () -> queue.setCompletionListener(() -> {}));
  }
}
