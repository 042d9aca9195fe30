package io.tidestore.store.io.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.AlignedBufferPool;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.IoQueueFullException;
import io.tidestore.store.io.TestFiles;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The classic engine's I/O hand-off on real threads and a real ring: a worker thread owns the
 * queue, an I/O thread owns the ring; data written through one is read back through it, every
 * completion arrives on the worker exactly once, and close cancels what the ring never saw. (The
 * daemon's Netty loops as these threads: osd-server's EventLoopIoThreadTest.)
 */
class IoThreadQueueTest {
  private static final int OPS = 32;

  private TestIoThread worker;
  private TestIoThread io;
  private Path dir;

  @BeforeEach
  void setUp() throws IOException {
    worker = new TestIoThread("worker-0");
    io = new TestIoThread("io-0");
    // O_DIRECT needs a real file system (tmpfs refuses it).
    dir = TestFiles.createDirectory("tidestore-iothread-");
  }

  @AfterEach
  void tearDown() throws Exception {
    worker.close();
    io.close();
    TestFiles.deleteRecursively(dir);
  }

  private <T> T onWorker(Callable<T> work) throws Exception {
    return worker.submit(work).get(30, TimeUnit.SECONDS);
  }

  /** Counts completions per tag and the threads they arrived on. */
  private static final class Outcomes implements IoCompletion {
    final int[] results;
    final IoOpException[] errors;
    final List<String> threads = new ArrayList<>();
    final CompletableFuture<Void> all = new CompletableFuture<>();
    int count;

    Outcomes(int ops) {
      results = new int[ops];
      errors = new IoOpException[ops];
    }

    @Override
    public void completed(long tag, int result) {
      results[(int) tag] += result;
      done();
    }

    @Override
    public void failed(long tag, IoOpException error) {
      errors[(int) tag] = error;
      done();
    }

    private void done() {
      threads.add(Thread.currentThread().getName());
      if (++count == results.length) {
        all.complete(null);
      }
    }
  }

  @Test
  void writesAndReadsGoThroughTheIoThreadAndCompleteOnTheWorker() throws Exception {
    IoQueueConfig config = IoQueueConfig.defaults().withCapacity(OPS);
    // The pool, like the queue, belongs to the worker.
    AlignedBufferPool pool = onWorker(() -> AlignedBufferPool.allocate(4096, 2 * OPS + 1));
    List<MemorySegment> taken = new ArrayList<>();
    Outcomes writes = new Outcomes(OPS);
    Object[] opened =
        onWorker(
            () -> {
              IoThreadQueue queue = IoThreadQueue.open(io, config);
              IoThread.Reaping binding = worker.reap(queue);
              queue.registerBuffers(pool.region());
              IoFile file = queue.open(dir.resolve("data"), IoFile.Mode.CREATE);
              for (int i = 0; i < OPS; i++) {
                MemorySegment buffer = pool.acquire();
                taken.add(buffer);
                buffer.fill((byte) (i + 1));
                queue.writeThenSync(file, 4096L * i, buffer, writes, i);
              }
              // Nothing reaches the I/O thread before submit: one hand-off per batch.
              assertEquals(OPS, queue.inFlight());
              MemorySegment spare = pool.acquire();
              taken.add(spare);
              assertThrows(IoQueueFullException.class, () -> queue.read(file, 0, spare, writes, 0));
              assertEquals(OPS, queue.submit());
              return new Object[] {queue, binding, file};
            });
    IoThreadQueue queue = (IoThreadQueue) opened[0];
    IoFile file = (IoFile) opened[2];
    writes.all.get(30, TimeUnit.SECONDS);
    assertTrue(queue.describe().contains("submitted and reaped on io-0"), queue.describe());
    for (int i = 0; i < OPS; i++) {
      assertEquals(4096, writes.results[i], "write " + i + " completed once, in full");
    }
    assertTrue(writes.threads.stream().allMatch("worker-0"::equals), writes.threads.toString());

    // Reads through await(), the path a shard's mount takes: no binding needed.
    Outcomes reads = new Outcomes(OPS);
    List<MemorySegment> into = new ArrayList<>();
    onWorker(
        () -> {
          ((IoThread.Reaping) opened[1]).close();
          queue.setCompletionListener(null);
          for (int i = 0; i < OPS; i++) {
            MemorySegment buffer = pool.acquire();
            into.add(buffer);
            queue.read(file, 4096L * i, buffer, reads, i);
          }
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (reads.count < OPS && System.nanoTime() < deadline) {
            queue.await(TimeUnit.SECONDS.toNanos(1));
          }
          return null;
        });
    assertEquals(OPS, reads.count);
    for (int i = 0; i < OPS; i++) {
      assertEquals(4096, reads.results[i], "read " + i + ": " + reads.errors[i]);
      assertEquals((byte) (i + 1), into.get(i).get(ValueLayout.JAVA_BYTE, 4095), "block " + i);
    }
    onWorker(
        () -> {
          assertEquals(0, queue.inFlight());
          queue.close();
          taken.forEach(pool::release);
          into.forEach(pool::release);
          pool.close();
          return null;
        });
  }

  @Test
  void closeCancelsWhatTheRingNeverSawAndDeliversWhatItHad() throws Exception {
    AlignedBufferPool pool = onWorker(() -> AlignedBufferPool.allocate(4096, 8));
    List<MemorySegment> taken = new ArrayList<>();
    Outcomes outcomes = new Outcomes(8);
    onWorker(
        () -> {
          IoThreadQueue queue = IoThreadQueue.open(io, IoQueueConfig.defaults().withCapacity(8));
          IoFile file = queue.open(dir.resolve("close"), IoFile.Mode.CREATE);
          for (int i = 0; i < 8; i++) {
            taken.add(pool.acquire());
          }
          for (int i = 0; i < 4; i++) {
            queue.writeDurable(file, 4096L * i, taken.get(i), outcomes, i);
          }
          queue.submit();
          for (int i = 4; i < 8; i++) {
            queue.writeDurable(file, 4096L * i, taken.get(i), outcomes, i);
          }
          queue.close();
          // Every operation completed before close returned, on this thread.
          assertEquals(8, outcomes.count);
          assertThrows(IllegalStateException.class, () -> queue.sync(file, outcomes, 0));
          return null;
        });
    for (int i = 0; i < 4; i++) {
      // Submitted before close: the real outcome (written), or cancelled if close won the race
      // to the I/O thread; never lost.
      IoOpException error = outcomes.errors[i];
      assertTrue(
          error == null ? outcomes.results[i] == 4096 : error.errno() == Errno.ECANCELED,
          "op " + i + ": " + error);
    }
    for (int i = 4; i < 8; i++) {
      assertEquals(Errno.ECANCELED, outcomes.errors[i].errno(), "never submitted: op " + i);
    }
    assertTrue(outcomes.threads.stream().allMatch("worker-0"::equals));
    onWorker(
        () -> {
          taken.forEach(pool::release);
          pool.close();
          return null;
        });
  }

  /**
   * The ring never leaves a completion's work for the I/O thread to run: with DEFER_TASKRUN it runs
   * only when the ring's owner enters the kernel, and an I/O thread that enters only when the
   * ring's eventfd fires was seen asleep with finished writes and fdatasyncs queued behind a signal
   * that never came (ClassicEngineIT, --journal-flush fdatasync, under load).
   */
  @Test
  void theRingDoesNotDeferCompletionWorkToTheIoThread() throws Exception {
    IoThreadQueue queue = onWorker(() -> IoThreadQueue.open(io, IoQueueConfig.defaults()));
    try {
      assertFalse(queue.describe().contains("DEFER_TASKRUN"), queue.describe());
    } finally {
      onWorker(
          () -> {
            queue.close();
            return null;
          });
    }
  }

  @Test
  void onlyTheOwnerMayUseTheQueue() throws Exception {
    IoThreadQueue queue = onWorker(() -> IoThreadQueue.open(io, IoQueueConfig.defaults()));
    assertThrows(WrongThreadException.class, queue::poll);
    ExecutionException onIo =
        assertThrows(
            ExecutionException.class, () -> io.submit(() -> IoThreadQueue.open(io, null)).get());
    assertInstanceOf(IllegalStateException.class, onIo.getCause());
    onWorker(
        () -> {
          queue.close();
          return null;
        });
  }
}
