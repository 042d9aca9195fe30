package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link IoQueue} contract, run against every backend by a subclass (as Netty's testsuite runs
 * one transport contract against each transport). Files live on a real disk: see {@link TestFiles}.
 */
public abstract class IoQueueContractTest {
  protected static final int CAPACITY = 32;
  private static final int K4 = 4096;

  protected Path dir;
  protected IoQueue queue;
  protected AlignedBufferPool pool;
  protected IoFile file;
  private final List<MemorySegment> acquired = new ArrayList<>();

  /** Creates the backend under test, owned by the calling thread. */
  protected abstract IoQueue newQueue(IoQueueConfig config) throws IOException;

  private final IoBackend expectedBackend;
  private final boolean registersBuffers;

  /**
   * @param expectedBackend the backend the subclass's queue must report
   * @param registersBuffers whether {@link IoQueue#registerBuffers} takes effect on it
   */
  protected IoQueueContractTest(IoBackend expectedBackend, boolean registersBuffers) {
    this.expectedBackend = expectedBackend;
    this.registersBuffers = registersBuffers;
  }

  protected IoQueueConfig config() {
    return IoQueueConfig.defaults().withCapacity(CAPACITY).withFallbackThreads(4);
  }

  @BeforeEach
  void setUp() throws IOException {
    dir = TestFiles.createDirectory("tidestore-ioq-");
    queue = newQueue(config());
    assertEquals(expectedBackend, queue.backend(), queue.describe());
    pool = AlignedBufferPool.allocate(128 * 1024, 2 * CAPACITY + 4);
    file = queue.open(dir.resolve("data"), IoFile.Mode.CREATE);
  }

  /** A whole pool buffer, released at tear-down (after the queue closed). */
  protected MemorySegment buffer() {
    MemorySegment buffer = pool.acquire();
    acquired.add(buffer);
    return buffer;
  }

  @AfterEach
  void tearDown() throws IOException {
    if (queue != null) {
      queue.close();
    }
    if (pool != null) {
      acquired.forEach(pool::release);
      pool.close();
    }
    TestFiles.deleteRecursively(dir);
  }

  private static void fillPattern(MemorySegment buffer, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (long i = 0; i < buffer.byteSize(); i += 8) {
      buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
    }
  }

  private static void assertPattern(MemorySegment buffer, long length, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (long i = 0; i < length; i += 8) {
      long expected = random.nextLong();
      long actual = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
      if (expected != actual) {
        throw new AssertionError("mismatch at byte " + i + " of pattern " + seed);
      }
    }
  }

  @Test
  void roundTripsAtManyOffsetsAndSizes() throws IOException {
    assertEquals(registersBuffers, queue.registerBuffers(pool.region()));
    int[] sizes = {K4, 2 * K4, 12 * K4, 32 * K4};
    long[] offsets = {0, K4, 5L * K4, 256L * K4, 3L * 1024 * 1024 + K4, 64L * 1024 * 1024};
    Recorder writes = new Recorder();
    MemorySegment[] buffers = new MemorySegment[sizes.length * offsets.length];
    long tag = 0;
    for (long offset : offsets) {
      for (int size : sizes) {
        MemorySegment buffer = buffer().asSlice(0, size);
        buffers[(int) tag] = buffer;
        fillPattern(buffer, tag);
        // Mix the three write flavours; each must land the same bytes.
        long fileOffset = offset + tag * 256L * K4;
        switch ((int) (tag % 3)) {
          case 0 -> queue.write(file, fileOffset, buffer, writes, tag);
          case 1 -> queue.writeDurable(file, fileOffset, buffer, writes, tag);
          default -> queue.writeThenSync(file, fileOffset, buffer, writes, tag);
        }
        tag++;
      }
    }
    writes.awaitDeliveries(queue, (int) tag);
    for (int t = 0; t < tag; t++) {
      assertEquals(buffers[t].byteSize(), writes.result(t), "bytes written by op " + t);
      buffers[t].fill((byte) 0);
    }
    Recorder reads = new Recorder();
    tag = 0;
    for (long offset : offsets) {
      for (int ignored : sizes) {
        queue.read(file, offset + tag * 256L * K4, buffers[(int) tag], reads, tag);
        tag++;
      }
    }
    reads.awaitDeliveries(queue, (int) tag);
    for (int t = 0; t < tag; t++) {
      assertEquals(buffers[t].byteSize(), reads.result(t), "bytes read by op " + t);
      assertPattern(buffers[t], buffers[t].byteSize(), t);
    }
    assertEquals(0, queue.inFlight());
  }

  @Test
  void linkedWriteThenSyncCompletesOnceWithTheWriteCount() throws IOException {
    MemorySegment buffer = buffer();
    fillPattern(buffer, 7);
    Recorder done = new Recorder();
    queue.writeThenSync(file, 8L * K4, buffer, done, 1);
    assertEquals(1, queue.inFlight());
    done.awaitDeliveries(queue, 1);
    assertEquals(buffer.byteSize(), done.result(1));
    assertEquals(0, queue.inFlight());
    assertEquals(8L * K4 + buffer.byteSize(), file.size());
  }

  @Test
  void linkedSyncDoesNotRunWhenItsWriteFails() throws IOException {
    MemorySegment misaligned = buffer().asSlice(1, K4);
    Recorder done = new Recorder();
    queue.writeThenSync(file, 0, misaligned, done, 1);
    done.awaitDeliveries(queue, 1);
    IoOpException error = done.error(1);
    assertEquals(Errno.EINVAL, error.errno(), error.getMessage());
    assertEquals(IoOpException.Op.WRITE_THEN_SYNC, error.op());
  }

  @Test
  void syncAfterWritesCompletesWithZero() throws IOException {
    MemorySegment buffer = buffer();
    fillPattern(buffer, 3);
    Recorder done = new Recorder();
    queue.write(file, 0, buffer, done, 1);
    done.awaitDeliveries(queue, 1);
    queue.sync(file, done, 2);
    done.awaitDeliveries(queue, 2);
    assertEquals(0, done.result(2));
  }

  @Test
  void capacityIsTheCapOnOperationsInFlight() throws IOException {
    assertEquals(CAPACITY, queue.capacity());
    Recorder done = new Recorder();
    MemorySegment[] buffers = new MemorySegment[CAPACITY];
    for (int i = 0; i < CAPACITY; i++) {
      buffers[i] = buffer().asSlice(0, K4);
      fillPattern(buffers[i], 100 + i);
      // Half linked write+sync (two SQEs each), the rest plain: the ring must hold all of them.
      if (i % 2 == 0) {
        queue.writeThenSync(file, (long) i * K4, buffers[i], done, i);
      } else {
        queue.writeDurable(file, (long) i * K4, buffers[i], done, i);
      }
    }
    assertEquals(CAPACITY, queue.inFlight());
    MemorySegment extra = buffer().asSlice(0, K4);
    assertThrows(IoQueueFullException.class, () -> queue.write(file, 0, extra, done, 999));
    assertThrows(IoQueueFullException.class, () -> queue.sync(file, done, 999));
    // Submitted but not completed still counts.
    queue.submit();
    assertThrows(IoQueueFullException.class, () -> queue.read(file, 0, extra, done, 999));
    done.awaitDeliveries(queue, CAPACITY);
    for (int i = 0; i < CAPACITY; i++) {
      assertEquals(K4, done.result(i));
    }
    assertEquals(0, queue.inFlight());
    // All slots are free again: a full second round, reading back.
    Recorder reads = new Recorder();
    for (int i = 0; i < CAPACITY; i++) {
      buffers[i].fill((byte) 0);
      queue.read(file, (long) i * K4, buffers[i], reads, i);
    }
    reads.awaitDeliveries(queue, CAPACITY);
    for (int i = 0; i < CAPACITY; i++) {
      assertEquals(K4, reads.result(i));
      assertPattern(buffers[i], K4, 100 + i);
    }
  }

  @Test
  void misalignedBufferFailsWithEinval() throws IOException {
    // Data first: a read at the end of the file completes with 0 before alignment is checked.
    Recorder setup = new Recorder();
    queue.write(file, 0, buffer().asSlice(0, 2 * K4), setup, 0);
    setup.awaitDeliveries(queue, 1);
    MemorySegment misaligned = buffer().asSlice(1, K4);
    Recorder done = new Recorder();
    queue.write(file, 0, misaligned, done, 1);
    queue.read(file, 0, misaligned, done, 2);
    done.awaitDeliveries(queue, 2);
    assertEquals(Errno.EINVAL, done.error(1).errno());
    assertEquals(IoOpException.Op.WRITE, done.error(1).op());
    assertEquals(Errno.EINVAL, done.error(2).errno());
    assertEquals(IoOpException.Op.READ, done.error(2).op());
  }

  @Test
  void misalignedOffsetFailsWithEinval() throws IOException {
    MemorySegment buffer = buffer().asSlice(0, K4);
    Recorder done = new Recorder();
    queue.write(file, 100, buffer, done, 1);
    done.awaitDeliveries(queue, 1);
    IoOpException error = done.error(1);
    assertEquals(Errno.EINVAL, error.errno());
    assertEquals(100, error.offset());
    assertEquals(K4, error.length());
  }

  @Test
  void readPastTheEndIsShortOrEmpty() throws IOException {
    MemorySegment buffer = buffer().asSlice(0, 2 * K4);
    fillPattern(buffer, 9);
    Recorder done = new Recorder();
    queue.write(file, 0, buffer, done, 1);
    done.awaitDeliveries(queue, 1);
    assertEquals(2L * K4, file.size());
    MemorySegment target = buffer().asSlice(0, 2 * K4);
    queue.read(file, K4, target, done, 2);
    queue.read(file, 2L * K4, target, done, 3);
    queue.read(file, 100L * K4, target, done, 4);
    done.awaitDeliveries(queue, 4);
    assertEquals(K4, done.result(2), "read crossing the end is short");
    assertEquals(0, done.result(3), "read at the end");
    assertEquals(0, done.result(4), "read beyond the end");
  }

  @Test
  void operationOnAClosedFileFailsWithEbadf() throws IOException {
    IoFile other = queue.open(dir.resolve("other"), IoFile.Mode.CREATE);
    other.close();
    MemorySegment buffer = buffer().asSlice(0, K4);
    Recorder done = new Recorder();
    queue.read(other, 0, buffer, done, 1);
    queue.write(other, 0, buffer, done, 2);
    queue.sync(other, done, 3);
    done.awaitDeliveries(queue, 3);
    for (long tag = 1; tag <= 3; tag++) {
      assertEquals(Errno.EBADF, done.error(tag).errno(), done.error(tag).getMessage());
    }
  }

  @Test
  void closingAFileWithOperationsInFlightIsRefused() throws IOException {
    Recorder done = new Recorder();
    queue.write(file, 0, buffer().asSlice(0, K4), done, 1);
    assertThrows(IllegalStateException.class, file::close);
    done.awaitDeliveries(queue, 1);
    assertEquals(K4, done.result(1));
    file.close();
    file.close(); // idempotent
  }

  @Test
  void openingAMissingFileForReadFails() {
    assertThrows(IOException.class, () -> queue.open(dir.resolve("missing"), IoFile.Mode.READ));
  }

  @Test
  void foreignThreadsAreRefused() throws Exception {
    MemorySegment buffer = buffer().asSlice(0, K4);
    Recorder done = new Recorder();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread.ofPlatform()
        .start(
            () -> {
              try {
                queue.write(file, 0, buffer, done, 1);
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    Throwable thrown;
    try {
      thrown = outcome.get();
    } catch (ExecutionException e) {
      throw new AssertionError(e);
    }
    assertTrue(thrown instanceof WrongThreadException, String.valueOf(thrown));
    assertEquals(0, queue.inFlight());
  }

  @Test
  void closeCompletesSubmittedOperationsAndCancelsUnsubmittedOnes() throws IOException {
    Recorder done = new Recorder();
    int submitted = CAPACITY / 2;
    MemorySegment[] buffers = new MemorySegment[CAPACITY];
    for (int i = 0; i < CAPACITY; i++) {
      buffers[i] = buffer().asSlice(0, 16 * K4);
      fillPattern(buffers[i], i);
      queue.writeThenSync(file, (long) i * 16 * K4, buffers[i], done, i);
      if (i == submitted - 1) {
        queue.submit();
      }
    }
    queue.close();
    assertEquals(CAPACITY, done.deliveries, "every operation completed exactly once");
    assertEquals(0, queue.inFlight());
    for (int i = 0; i < submitted; i++) {
      assertEquals(16 * K4, done.result(i), "submitted op " + i + " ran to completion");
    }
    for (int i = submitted; i < CAPACITY; i++) {
      assertEquals(Errno.ECANCELED, done.error(i).errno(), "unsubmitted op " + i);
    }
    assertThrows(IllegalStateException.class, () -> queue.submit());
    queue.close(); // idempotent
    queue = null;
  }

  @Test
  void aThrowingCompletionDoesNotStopTheRestOfItsBatch() throws Exception {
    int ops = 8;
    ThrowingCompletion done = new ThrowingCompletion(2);
    // Every operation finishes before any is delivered, so that one poll delivers them together:
    // a backend without a completion fd calls its listener as each is handed back; io_uring fails
    // an operation on a closed file (fd -1) as it takes the SQE, so its CQE is there once submit
    // returns (a misaligned write would not do: ext4 may hand it to a kernel worker first).
    CountDownLatch finished = new CountDownLatch(ops);
    boolean wakesByListener = queue.completionFd() < 0;
    if (wakesByListener) {
      queue.setCompletionListener(finished::countDown);
    }
    IoFile closed = queue.open(dir.resolve("closed"), IoFile.Mode.CREATE);
    closed.close();
    MemorySegment buffer = buffer().asSlice(0, K4);
    for (int i = 0; i < ops; i++) {
      queue.read(closed, (long) i * K4, buffer, done, i);
    }
    queue.submit();
    if (wakesByListener) {
      assertTrue(finished.await(20, TimeUnit.SECONDS), "operations finished");
    }
    IllegalStateException thrown = assertThrows(IllegalStateException.class, queue::poll);
    done.assertAllFailedThenThrown(ops, Errno.EBADF, thrown);
    assertEquals(0, queue.inFlight());
    // No slot was lost: a full round of operations fits and completes.
    Recorder after = new Recorder();
    for (int i = 0; i < CAPACITY; i++) {
      queue.sync(file, after, i);
    }
    after.awaitDeliveries(queue, CAPACITY);
    assertEquals(0, queue.inFlight());
  }

  @Test
  void closeCancelsEveryUnsubmittedOperationEvenIfACompletionThrows() {
    int ops = 8;
    ThrowingCompletion done = new ThrowingCompletion(2);
    for (int i = 0; i < ops; i++) {
      queue.sync(file, done, i);
    }
    IllegalStateException thrown = assertThrows(IllegalStateException.class, queue::close);
    done.assertAllFailedThenThrown(ops, Errno.ECANCELED, thrown);
    assertEquals(0, queue.inFlight());
    assertThrows(
        IllegalStateException.class, () -> queue.submit(), "the queue closed all the same");
    queue.close(); // idempotent
    queue = null;
  }

  @Test
  void awaitWithNothingInFlightReturnsAtOnce() throws IOException {
    long start = System.nanoTime();
    assertEquals(0, queue.await(5_000_000_000L));
    assertTrue(System.nanoTime() - start < 4_000_000_000L, "await did not block");
    assertEquals(0, queue.poll());
  }

  @Test
  void describeNamesTheBackend() {
    assertTrue(queue.describe().startsWith(expectedBackend.name()), queue.describe());
    assertFalse(queue.describe().isBlank());
  }

  @Test
  void heapSegmentsAreRejectedUpFront() {
    Recorder done = new Recorder();
    MemorySegment heap = MemorySegment.ofArray(new byte[K4]);
    assertThrows(IllegalArgumentException.class, () -> queue.write(file, 0, heap, done, 1));
    assertEquals(0, queue.inFlight());
  }
}
