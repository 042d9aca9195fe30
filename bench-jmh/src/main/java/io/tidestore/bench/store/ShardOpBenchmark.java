package io.tidestore.bench.store;

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
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.memory.MemoryBudget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One shard's operations end to end, one at a time, on a real file and the real I/O backend, as a
 * reactor drives them: the benchmark thread mounts the shard (it is the owner thread), issues the
 * operation, ends the loop pass and reaps the queue until the completion fires. For {@code -prof
 * gc}: {@code gc.alloc.rate.norm} is the heap allocated per operation (issue 19's goal is 0 for the
 * durable write path), a count that does not depend on timing.
 *
 * <ul>
 *   <li>{@code write4k}, {@code write64k}: an aligned overwrite of a 4 MiB object at a rotating
 *       offset: staged into the journal batch, written durably, applied (index, extent cache) and
 *       acknowledged;
 *   <li>{@code readCached4k}: an aligned 4 KiB read of the same object, every block in the extent
 *       cache (no I/O: the peer figure of the write path).
 * </ul>
 *
 * Files go under {@code -Dtidestore.bench.dir} (default {@code /var/tmp}; O_DIRECT needs a real
 * file system). {@code -p backend=FILE_CHANNEL} measures the fallback backend, whose worker threads
 * allocate per operation themselves; {@code -p flush=SHARED_FDATASYNC} the shared-fdatasync mode.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ShardOpBenchmark {
  private static final int OBJECT_BYTES = 4 << 20;
  private static final int LARGE = 64 << 10;
  private static final long AWAIT_NANOS = 1_000_000_000L;

  @Param({"AUTO"})
  public String backend;

  @Param({"RECORD_DSYNC"})
  public String flush;

  private Path dir;
  private Arena arena;
  private ExtentCache cache;
  private ObjectStore store;
  private IoQueue queue;
  private ShardStore shard;
  private MemorySegment data4k;
  private MemorySegment data64k;
  private MemorySegment into;
  private final ObjectKey key = new ObjectKey(1, "rbd_data.bench.0000000000000000");
  private long writeOffset;
  private long readOffset;

  // One completion of each kind for the whole run, so the benchmark itself allocates nothing.
  private boolean done;
  private StoreException failure;
  private final StoreCompletion<Void> written = (v, e) -> finish(e);
  private final StoreCompletion<Integer> read = (n, e) -> finish(e);

  private void finish(StoreException e) {
    failure = e;
    done = true;
  }

  @Setup(Level.Trial)
  public void mount() throws IOException {
    dir = StoreMeasurements.createDirectory("bench-shard-op");
    StoreFormat.mkfs(dir, 1, 256L << 20, 8 << 20);
    store =
        LogStore.open(dir, StoreConfig.defaults().withJournalFlush(JournalFlush.valueOf(flush)));
    queue =
        IoQueues.create(
            IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.valueOf(backend)));
    // Room for the whole object, so every read of it hits; the daemon's default policy.
    long cacheBytes = 2L * OBJECT_BYTES;
    cache =
        ExtentCache.open(
            "bench cache", cacheBytes, PolicyConfig.daemonDefault(), new MemoryBudget(cacheBytes));
    shard = store.mountShard(0, queue, new ShardCacheHook(cache));
    arena = Arena.ofConfined();
    data64k = arena.allocate(LARGE, 4096);
    data64k.fill((byte) 0x5a);
    data4k = data64k.asSlice(0, 4096);
    into = arena.allocate(4096, 4096);
    for (long at = 0; at < OBJECT_BYTES; at += LARGE) {
      write(at, data64k);
    }
    System.out.println("\n" + queue.describe());
  }

  @TearDown(Level.Trial)
  public void unmount() throws IOException {
    shard.close();
    queue.close();
    store.close();
    cache.close();
    arena.close();
    StoreMeasurements.deleteRecursively(dir);
  }

  @Benchmark
  public void write4k() throws IOException {
    write(writeOffset, data4k);
    writeOffset = (writeOffset + 4096) % OBJECT_BYTES;
  }

  @Benchmark
  public void write64k() throws IOException {
    write(writeOffset, data64k);
    writeOffset = (writeOffset + LARGE) % OBJECT_BYTES;
  }

  @Benchmark
  public void readCached4k() throws IOException {
    done = false;
    shard.read(key, readOffset, into, read);
    awaitDone();
    readOffset = (readOffset + 4096) % OBJECT_BYTES;
  }

  /** write -> endOfPass -> reap until durable, applied and acknowledged. */
  private void write(long offset, MemorySegment data) throws IOException {
    done = false;
    shard.write(key, offset, data, written);
    awaitDone();
  }

  private void awaitDone() throws IOException {
    while (!done) {
      shard.endOfPass();
      if (!done) {
        queue.await(AWAIT_NANOS);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
