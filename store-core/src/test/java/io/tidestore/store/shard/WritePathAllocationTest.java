package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.nio.file.ExtendedOpenOption;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.ShardCacheHook;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.TestFiles;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.memory.MemoryBudget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: once compiled, the durable write path (write, journal record, durable write, apply,
 * acknowledgement) allocates nothing per operation, and neither does a read of a cached block. A
 * real shard on real files with the io_uring backend, whose completions run on the owner thread:
 * the owner thread's allocation counter sees the whole path, the kernel's I/O workers are not Java.
 *
 * <p>Each measured operation is counted on its own. The shard's background work (a checkpoint when
 * the journal has filled enough segments) allocates, legitimately and rarely, so the bound is on
 * how many operations allocate anything: an allocation per operation makes every one of them count.
 * The JIT's escape analysis removes some allocations only in compiled code, so the path is warmed
 * up first, long enough for C2 (the benchmark, {@code ShardOpBenchmark} with {@code -prof gc},
 * reports the same path's bytes per operation). It runs in a JVM of its own (store-core's pom):
 * where other tests ran the same code over other queues, the JIT inlines less and removes less.
 */
class WritePathAllocationTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final ObjectKey KEY = new ObjectKey(1, "rbd_data.alloc.0000000000000000");
  private static final int OBJECT_BYTES = 1 << 20;
  private static final int LARGE = 64 << 10;
  private static final int WARM_UP = 10_000;
  private static final int WINDOW = 1_000;
  private static final long WARM_UP_NANOS = 60_000_000_000L;
  private static final int MEASURED = 2_000;

  /** Measured operations that may allocate (background work); a per-op allocation makes all. */
  private static final int ALLOWED = MEASURED / 50;

  private Path dir;
  private Arena arena;
  private ExtentCache cache;
  private ObjectStore store;
  private IoQueue queue;
  private ShardStore shard;
  private boolean done;
  private StoreException failure;
  private final StoreCompletion<Void> written = (v, e) -> finish(e);
  private final StoreCompletion<Integer> read = (n, e) -> finish(e);

  private void finish(StoreException e) {
    failure = e;
    done = true;
  }

  @AfterEach
  void close() throws IOException {
    if (shard != null) {
      shard.close();
    }
    if (queue != null) {
      queue.close();
    }
    if (store != null) {
      store.close();
    }
    if (cache != null) {
      cache.close();
    }
    if (arena != null) {
      arena.close();
    }
    TestFiles.deleteRecursively(dir);
  }

  /**
   * tmpfs where the kernel gives it O_DIRECT (Linux 6.6 and later): the warm-up's thousands of
   * durable writes then take seconds, not minutes as on a disk. Else the disk ({@link TestFiles}).
   */
  private static Path scratchDirectory() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (System.getProperty("tidestore.test.dir") == null && Files.isDirectory(shm)) {
      Path candidate = Files.createTempDirectory(shm, "store-alloc");
      Path probe = candidate.resolve("probe");
      try {
        FileChannel.open(
                probe,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                ExtendedOpenOption.DIRECT)
            .close();
        Files.delete(probe);
        return candidate;
      } catch (IOException | UnsupportedOperationException e) {
        // tmpfs takes O_DIRECT only on newer kernels (EINVAL before 6.6): measure on the disk then.
        TestFiles.deleteRecursively(candidate);
      }
    }
    return TestFiles.createDirectory("store-alloc");
  }

  private void mount(JournalFlush flush) throws IOException {
    dir = scratchDirectory();
    StoreFormat.mkfs(dir, 1, 64L << 20, 1 << 20);
    store = LogStore.open(dir, StoreConfig.defaults().withJournalFlush(flush));
    queue = IoQueues.create(IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.IO_URING));
    long cacheBytes = 2L * OBJECT_BYTES;
    cache =
        ExtentCache.open(
            "test cache", cacheBytes, PolicyConfig.daemonDefault(), new MemoryBudget(cacheBytes));
    shard = store.mountShard(0, queue, new ShardCacheHook(cache));
    arena = Arena.ofConfined();
  }

  @Test
  void warmedUpWritesAndCachedReadsAllocateNothingPerOperation() throws IOException {
    for (JournalFlush flush : JournalFlush.values()) {
      mount(flush);
      MemorySegment data = arena.allocate(LARGE, 4096);
      data.fill((byte) 0x33);
      MemorySegment block = data.asSlice(0, 4096);
      MemorySegment into = arena.allocate(4096, 4096);
      for (long at = 0; at < OBJECT_BYTES; at += LARGE) {
        write(at, data);
      }
      // Warm up until C2 has compiled the path: a window of rounds in which (almost) no operation
      // allocates, at least WARM_UP rounds, at most WARM_UP_NANOS (compilation runs on background
      // threads and takes longer on a busy machine). A path that allocates per operation never
      // gets there, and then fails the measurement that follows.
      long deadline = System.nanoTime() + WARM_UP_NANOS;
      int round = 0;
      boolean clean = false;
      while (!(clean && round >= WARM_UP) && System.nanoTime() < deadline) {
        int[] window = new int[3];
        for (int i = 0; i < WINDOW; i++, round++) {
          round(round, block, data, into, window, new long[3]);
        }
        clean = Arrays.stream(window).allMatch(n -> n <= WINDOW / 50);
      }
      int[] allocating = new int[3];
      long[] bytes = new long[3];
      for (int i = 0; i < MEASURED; i++, round++) {
        round(round, block, data, into, allocating, bytes);
      }
      String report =
          String.format(
              "%s: of %d operations each, allocated: write 4k %d (%d bytes), write 64k %d (%d"
                  + " bytes), cached read 4k %d (%d bytes)",
              flush,
              MEASURED,
              allocating[0],
              bytes[0],
              allocating[1],
              bytes[1],
              allocating[2],
              bytes[2]);
      System.out.println(report);
      for (int kind = 0; kind < 3; kind++) {
        assertTrue(allocating[kind] <= ALLOWED, report);
      }
      close();
      shard = null;
      queue = null;
      store = null;
      cache = null;
      arena = null;
    }
  }

  /** Round {@code i}: a 4 KiB write, a 64 KiB write and a cached 4 KiB read, each counted. */
  private void round(
      int i,
      MemorySegment block,
      MemorySegment data,
      MemorySegment into,
      int[] allocating,
      long[] bytes)
      throws IOException {
    long at = (long) i * LARGE % OBJECT_BYTES;
    count(0, allocating, bytes, at, block, null);
    count(1, allocating, bytes, at, data, null);
    count(2, allocating, bytes, at, null, into);
  }

  /** One operation of {@code kind} at {@code at}: counted when it allocated anything. */
  private void count(
      int kind, int[] allocating, long[] bytes, long at, MemorySegment data, MemorySegment into)
      throws IOException {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    if (into == null) {
      write(at, data);
    } else {
      done = false;
      shard.read(KEY, at, into, read);
      awaitDone();
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    if (allocated > 0) {
      allocating[kind]++;
      bytes[kind] += allocated;
    }
  }

  private void write(long at, MemorySegment data) throws IOException {
    done = false;
    shard.write(KEY, at, data, written);
    awaitDone();
  }

  /** Drives the loop as a reactor does (end the pass, reap the queue) until the completion. */
  private void awaitDone() throws IOException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!done) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion within 20 s");
      }
      shard.endOfPass();
      if (!done) {
        queue.await(100_000_000L);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
