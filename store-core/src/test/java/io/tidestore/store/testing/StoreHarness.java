package io.tidestore.store.testing;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.memory.MemoryBudget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * A one-shard store for tests: real mkfs files in a temp dir, mounted on a {@link SimDisk} (or a
 * given queue), with blocking helpers that drive the loop (end the pass, reap completions) until an
 * operation completes. Test thread only.
 */
public final class StoreHarness implements AutoCloseable {
  /** Small geometry for tests: 32 segments of 128 KiB. */
  public static final long SHARD_BYTES = (4L << 20) + 8192;

  public static final int SEGMENT_BYTES = 128 << 10;

  /**
   * How long {@link #call} waits. Above the shard's own bound on parking a write for the cleaner
   * (10 s, then NO_SPACE), so a full store's answer always arrives before the harness gives up.
   */
  static final long CALL_TIMEOUT_NANOS = 30_000_000_000L;

  public static StoreConfig testConfig() {
    return new StoreConfig(
        64 << 10,
        64,
        1_000_000L,
        4,
        512 << 10,
        CleanerPolicy.GREEDY,
        6,
        2,
        JournalFlush.SHARED_FDATASYNC,
        0); // no headroom: users may fill up to the cleaner's break-even, its hardest case
  }

  public final Path dir;
  public final SimDisk disk;
  public final StoreConfig config;
  private final ExtentCacheHook cacheHook;

  /** What mounts charge; tests of memory accounting swap in a limited one before a remount. */
  public MemoryBudget budget;

  public ObjectStore store;
  public IoQueue queue;
  public ShardStore shard;

  public StoreHarness(Path dir, long seed, StoreConfig config) throws IOException {
    this(dir, seed, config, ExtentCacheHook.NONE);
  }

  /** A harness whose shard goes through {@code cacheHook} (e.g. a real extent cache). */
  public StoreHarness(Path dir, long seed, StoreConfig config, ExtentCacheHook cacheHook)
      throws IOException {
    this(dir, seed, config, cacheHook, MemoryBudget.unbounded());
  }

  /** A harness whose shard charges its buffers and index to {@code budget}. */
  public StoreHarness(
      Path dir, long seed, StoreConfig config, ExtentCacheHook cacheHook, MemoryBudget budget)
      throws IOException {
    this.budget = budget;
    this.dir = dir;
    this.disk = new SimDisk(seed);
    this.config = config;
    this.cacheHook = cacheHook;
    StoreFormat.mkfs(dir, 1, SHARD_BYTES, SEGMENT_BYTES);
    mount();
  }

  public void mount() throws IOException {
    store = LogStore.open(dir, config, budget);
    queue = disk.newQueue();
    shard = store.mountShard(0, queue, cacheHook);
  }

  /** Cuts the power and remounts. */
  public void crashAndRemount() throws IOException {
    disk.crash();
    store.close();
    mount();
  }

  /** Closes cleanly and remounts. */
  public void remount() throws IOException {
    shard.close();
    store.close();
    mount();
  }

  /** One loop pass: end the pass, reap what completed. */
  public void pass() throws IOException {
    shard.endOfPass();
    queue.await(1_000_000);
  }

  /** Runs one operation to completion, throwing its failure. */
  public <T> T call(Consumer<StoreCompletion<T>> op) throws IOException {
    Object[] result = new Object[1];
    StoreException[] error = new StoreException[1];
    boolean[] done = new boolean[1];
    op.accept(
        (v, e) -> {
          result[0] = v;
          error[0] = e;
          done[0] = true;
        });
    long deadline = System.nanoTime() + CALL_TIMEOUT_NANOS;
    while (!done[0]) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("operation did not complete within 30 s");
      }
      pass();
    }
    if (error[0] != null) {
      throw error[0];
    }
    @SuppressWarnings("unchecked") // the completion's type parameter
    T value = (T) result[0];
    return value;
  }

  public void write(ObjectKey key, long offset, byte[] data) throws IOException {
    call((StoreCompletion<Void> c) -> shard.write(key, offset, MemorySegment.ofArray(data), c));
  }

  public byte[] read(ObjectKey key, long offset, int length) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment into = a.allocate(Math.max(1, length));
      int n =
          call((StoreCompletion<Integer> c) -> shard.read(key, offset, into.asSlice(0, length), c));
      return into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }
  }

  /** Drives the loop until the shard has nothing pending (fails after 10 s). */
  public void awaitIdle() throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!shard.idle()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("shard did not go idle");
      }
      pass();
    }
  }

  @Override
  public void close() throws IOException {
    if (shard != null) {
      shard.close();
    }
    if (store != null) {
      store.close();
    }
  }
}
