package io.tidestore.osd.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.reactor.IoQueueLoopBinding;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.store.io.AlignedBufferPool;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.handoff.IoThreadQueue;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The classic engine's wiring of the I/O hand-off: an op worker loop owns an {@link IoThreadQueue}
 * (woken through {@link IoQueueLoopBinding}), an epoll I/O loop owns the ring as an {@link
 * EventLoopIoThread} (its eventfd watched by that loop). The hand-off itself is tested in
 * store-core (IoThreadQueueTest and the IoQueue contract).
 */
class EventLoopIoThreadTest {
  private static final int OPS = 16;

  private Reactors workers;
  private Reactors io;
  private IoEventLoop worker;
  private Path dir;

  @BeforeEach
  void setUp() throws IOException {
    int[] one = {CpuAllocator.UNPINNED};
    workers = Reactors.start("osd-op", Transport.EPOLL, one, Optional.empty());
    io = Reactors.start("io", Transport.EPOLL, one, Optional.empty());
    worker = workers.get(0).loop();
    // O_DIRECT needs a real file system (tmpfs refuses it).
    dir =
        Files.createTempDirectory(
            Path.of(System.getProperty("tidestore.test.dir", "/var/tmp")), "tidestore-iothread-");
  }

  @AfterEach
  void tearDown() throws Exception {
    workers.close();
    io.close();
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir);
  }

  private <T> T onWorker(Callable<T> work) throws Exception {
    return worker.submit(work).get(30, TimeUnit.SECONDS);
  }

  /** Counts completions per tag and the threads they arrived on. */
  private static final class Outcomes implements IoCompletion {
    final int[] results = new int[OPS];
    final List<String> threads = new ArrayList<>();
    final CompletableFuture<Void> all = new CompletableFuture<>();

    @Override
    public void completed(long tag, int result) {
      results[(int) tag] += result;
      done();
    }

    @Override
    public void failed(long tag, IoOpException error) {
      all.completeExceptionally(error);
    }

    private void done() {
      threads.add(Thread.currentThread().getName());
      if (threads.size() == OPS) {
        all.complete(null);
      }
    }
  }

  @Test
  void theIoLoopOwnsTheRingAndTheWorkerLoopGetsTheCompletions() throws Exception {
    IoQueueConfig config = IoQueueConfig.defaults().withCapacity(OPS);
    AlignedBufferPool pool = onWorker(() -> AlignedBufferPool.allocate(4096, OPS));
    Outcomes writes = new Outcomes();
    List<MemorySegment> taken = new ArrayList<>();
    Object[] opened =
        onWorker(
            () -> {
              IoThreadQueue queue =
                  IoThreadQueue.open(new EventLoopIoThread(io.get(0).loop()), config);
              IoQueueLoopBinding binding = IoQueueLoopBinding.bind(worker, queue);
              IoFile file = queue.open(dir.resolve("data"), IoFile.Mode.CREATE);
              for (int i = 0; i < OPS; i++) {
                taken.add(pool.acquire());
                queue.writeThenSync(file, 4096L * i, taken.get(i), writes, i);
              }
              queue.submit();
              return new Object[] {queue, binding};
            });
    IoThreadQueue queue = (IoThreadQueue) opened[0];
    // The ring's eventfd woke the I/O loop, whose completions woke the worker loop.
    writes.all.get(30, TimeUnit.SECONDS);
    assertTrue(queue.describe().contains("submitted and reaped on io-0"), queue.describe());
    assertTrue(writes.threads.stream().allMatch("osd-op-0"::equals), writes.threads.toString());
    for (int i = 0; i < OPS; i++) {
      assertEquals(4096, writes.results[i], "write " + i);
    }
    onWorker(
        () -> {
          ((IoQueueLoopBinding) opened[1]).close();
          queue.close();
          taken.forEach(pool::release);
          pool.close();
          return null;
        });
  }

  @Test
  void theIoLoopCannotOwnAQueueInFrontOfItself() {
    IoEventLoop ioLoop = io.get(0).loop();
    ExecutionException onIo =
        assertThrows(
            ExecutionException.class,
            () ->
                ioLoop
                    .submit(
                        () ->
                            IoThreadQueue.open(
                                new EventLoopIoThread(ioLoop), IoQueueConfig.defaults()))
                    .get());
    assertInstanceOf(IllegalStateException.class, onIo.getCause());
  }
}
