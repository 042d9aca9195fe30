package io.tidestore.osd.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.tidestore.store.io.AlignedBufferPool;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real Netty 4.2 event loop, epoll and io_uring alike, reaps ring completions on its own thread:
 * the queue is created and driven on the loop thread, nothing else calls poll() or await(), and
 * completions arrive through the eventfd (or, for the fallback, through the listener).
 */
class IoQueueLoopBindingTest {
  private static final int OPS = 64;

  private MultiThreadIoEventLoopGroup group;
  private IoEventLoop loop;
  private Path dir;

  private void startLoop(Transport transport) {
    assertNull(transport.unavailabilityCause(), transport.label() + " works on this machine");
    group = new MultiThreadIoEventLoopGroup(1, transport.handlerFactory());
    loop = group.next();
  }

  @BeforeEach
  void setUp() throws IOException {
    // O_DIRECT needs a real file system (tmpfs refuses it).
    dir =
        Files.createTempDirectory(
            Path.of(System.getProperty("tidestore.test.dir", "/var/tmp")), "tidestore-loop-");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (group != null) {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir);
  }

  private <T> T onLoop(Callable<T> work) throws Exception {
    return loop.submit(work).get(20, TimeUnit.SECONDS);
  }

  /** Everything one shard holds, created and used on the loop thread. */
  private final class Shard implements IoCompletion {
    final IoQueue queue;
    final AlignedBufferPool pool;
    final IoFile file;
    final IoQueueLoopBinding binding;
    final List<MemorySegment> buffers = new ArrayList<>();
    final CompletableFuture<Void> allDone = new CompletableFuture<>();
    int completed;
    boolean offLoop;

    Shard(IoQueueConfig config) throws IOException {
      queue = IoQueues.create(config);
      pool = AlignedBufferPool.allocate(4096, OPS);
      queue.registerBuffers(pool.region());
      file = queue.open(dir.resolve("data-" + config.backend()), IoFile.Mode.CREATE);
      binding = IoQueueLoopBinding.bind(loop, queue);
    }

    void writeAll() throws IOException {
      for (int i = 0; i < OPS; i++) {
        MemorySegment buffer = pool.acquire();
        buffers.add(buffer);
        buffer.fill((byte) i);
        queue.writeThenSync(file, 4096L * i, buffer, this, i);
      }
      queue.submit();
    }

    @Override
    public void completed(long tag, int result) {
      offLoop |= !loop.inEventLoop();
      if (result != 4096) {
        allDone.completeExceptionally(new AssertionError("op " + tag + " wrote " + result));
      }
      if (++completed == OPS) {
        allDone.complete(null);
      }
    }

    @Override
    public void failed(long tag, IoOpException error) {
      allDone.completeExceptionally(error);
    }

    void close() {
      binding.close();
      queue.close();
      buffers.forEach(pool::release);
      pool.close();
    }
  }

  private void reapsOnTheLoop(Transport transport, IoQueueConfig config, IoBackend expected)
      throws Exception {
    startLoop(transport);
    Shard shard =
        onLoop(
            () -> {
              Shard s = new Shard(config);
              s.writeAll();
              return s;
            });
    assertEquals(expected, shard.queue.backend(), shard.queue.describe());
    // Only the loop reaps: this thread just waits for the outcome.
    shard.allDone.get(20, TimeUnit.SECONDS);
    long wakeups =
        onLoop(
            () -> {
              assertEquals(0, shard.queue.inFlight());
              long n = shard.binding.wakeups();
              shard.close();
              return n;
            });
    // The loop lets go of the eventfd once closed (io_uring: once the cancelled poll's completion
    // is reaped). Each round trip to the loop is a pass that reaps what the kernel posted.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!onLoop(shard.binding::released) && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(onLoop(shard.binding::released), "the loop released the eventfd");
    assertTrue(!shard.offLoop, "every completion ran on the loop thread");
    // Each CQE can signal the eventfd twice (when its completion work is queued under
    // DEFER_TASKRUN, and when it is posted): a busy loop would wake orders of magnitude more.
    long cqes = 2L * OPS;
    assertTrue(wakeups >= 1 && wakeups <= 2 * cqes, "woken per completion, not spun: " + wakeups);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void ioUringCompletionsWakeTheLoopThroughTheEventfd(Transport transport) throws Exception {
    // Default config: DEFER_TASKRUN where the kernel has it, the hardest case for a wake-up.
    IoQueueConfig config =
        IoQueueConfig.defaults().withCapacity(OPS).withBackend(IoQueueConfig.Backend.IO_URING);
    reapsOnTheLoop(transport, config, IoBackend.IO_URING);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void ioUringWithoutDeferTaskrunToo(Transport transport) throws Exception {
    IoQueueConfig config =
        IoQueueConfig.defaults()
            .withCapacity(OPS)
            .withBackend(IoQueueConfig.Backend.IO_URING)
            .withDeferTaskrun(false);
    reapsOnTheLoop(transport, config, IoBackend.IO_URING);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void fallbackCompletionsReachTheLoopThroughTheListener(Transport transport) throws Exception {
    IoQueueConfig config =
        IoQueueConfig.defaults().withCapacity(OPS).withBackend(IoQueueConfig.Backend.FILE_CHANNEL);
    reapsOnTheLoop(transport, config, IoBackend.FILE_CHANNEL);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aClosedBindingNoLongerReaps(Transport transport) throws Exception {
    startLoop(transport);
    IoQueueConfig config =
        IoQueueConfig.defaults().withCapacity(OPS).withBackend(IoQueueConfig.Backend.IO_URING);
    Shard shard = onLoop(() -> new Shard(config));
    int eventfd = onLoop(shard.queue::completionFd);
    onLoop(
        () -> {
          shard.binding.close();
          shard.writeAll();
          return null;
        });
    // Wait until the kernel has signalled the eventfd (completion work is queued), then give the
    // loop a pass: a binding still watching would have drained it and reaped the writes.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (eventfdCount(eventfd) == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(eventfdCount(eventfd) > 0, "the writes signalled the eventfd");
    assertEquals(0, onLoop(() -> shard.completed), "nothing reaped them");
    onLoop(
        () -> {
          while (shard.queue.inFlight() > 0) {
            shard.queue.await(TimeUnit.SECONDS.toNanos(5));
          }
          return null;
        });
    shard.allDone.get(5, TimeUnit.SECONDS);
    onLoop(
        () -> {
          shard.close();
          return null;
        });
  }

  /** An eventfd's counter as the kernel shows it ({@code eventfd-count} in fdinfo, hex). */
  private static long eventfdCount(int fd) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
      if (line.startsWith("eventfd-count:")) {
        return Long.parseLong(line.substring("eventfd-count:".length()).strip(), 16);
      }
    }
    throw new IOException("fd " + fd + " is not an eventfd");
  }

  @Test
  void bindingOffTheLoopIsRefused() throws Exception {
    startLoop(Transport.EPOLL);
    IoQueue queue = IoQueues.create(IoQueueConfig.defaults().withCapacity(8));
    try {
      IllegalStateException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalStateException.class, () -> IoQueueLoopBinding.bind(loop, queue));
      assertTrue(e.getMessage().contains("event loop thread"));
    } finally {
      queue.close();
    }
  }
}
