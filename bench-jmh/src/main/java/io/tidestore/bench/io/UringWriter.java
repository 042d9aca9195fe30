package io.tidestore.bench.io;

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
import java.util.SplittableRandom;

/**
 * One io_uring queue driven by one thread at a fixed queue depth: the store's shape. Not
 * thread-safe: the thread that calls {@link #open} owns it.
 */
final class UringWriter implements IoCompletion {
  private static final long AWAIT_NANOS = 1_000_000_000L;

  private final int depth;
  private final int blockSize;
  private final long fileSize;
  private final boolean sequential;
  private IoQueue queue;
  private IoFile file;
  private AlignedBufferPool pool;
  private MemorySegment[] buffers;
  private int[] free;
  private int freeCount;
  private final SplittableRandom random = new SplittableRandom(42);
  private long nextSequential;
  private WriteCounters counters;
  private IoOpException failure;

  UringWriter(int depth, int blockSize, long fileSize, boolean sequential) {
    this.depth = depth;
    this.blockSize = blockSize;
    this.fileSize = fileSize;
    this.sequential = sequential;
  }

  void open(java.nio.file.Path path) throws IOException {
    queue =
        IoQueues.create(
            IoQueueConfig.defaults()
                .withCapacity(Integer.highestOneBit(Math.max(depth, 1) * 2 - 1) * 2)
                .withBackend(IoQueueConfig.Backend.IO_URING));
    if (queue.backend() != IoBackend.IO_URING) {
      throw new IllegalStateException("expected io_uring: " + queue.describe());
    }
    pool = AlignedBufferPool.allocate(blockSize, depth);
    queue.registerBuffers(pool.region());
    file = queue.open(path, IoFile.Mode.READ_WRITE);
    buffers = new MemorySegment[depth];
    free = new int[depth];
    for (int i = 0; i < depth; i++) {
      buffers[i] = pool.acquire();
      buffers[i].fill((byte) (i + 1));
      free[i] = i;
    }
    freeCount = depth;
  }

  String describe() {
    return queue.describe();
  }

  private long nextOffset() {
    if (sequential) {
      long at = nextSequential;
      nextSequential = (nextSequential + blockSize) % (fileSize - fileSize % blockSize);
      return at;
    }
    return (long) random.nextInt((int) (fileSize / blockSize)) * blockSize;
  }

  /**
   * Keeps {@code depth} durable (RWF_DSYNC) writes in flight and returns once at least one
   * completed: a sustained queue depth, like fio's iodepth.
   */
  void durableStep(WriteCounters c) throws IOException {
    durableStep(c, false);
  }

  /**
   * As {@link #durableStep(WriteCounters)}; with {@code linked}, each write is a write linked to an
   * fdatasync (IOSQE_IO_LINK) instead of one RWF_DSYNC write: the exact io_uring twin of the
   * FileChannel peer's write + force(false).
   */
  void durableStep(WriteCounters c, boolean linked) throws IOException {
    counters = c;
    while (freeCount > 0) {
      int b = free[--freeCount];
      if (linked) {
        queue.writeThenSync(file, nextOffset(), buffers[b], this, b);
      } else {
        queue.writeDurable(file, nextOffset(), buffers[b], this, b);
      }
    }
    queue.await(AWAIT_NANOS);
    check();
  }

  /**
   * The store's group commit: {@code depth} plain writes in one submission, then one fdatasync for
   * the whole batch; counts the batch's writes once the sync completed.
   */
  void batchThenSyncStep(WriteCounters c) throws IOException {
    // Durable writes of an earlier step still in flight complete (and count) first.
    counters = c;
    awaitAll();
    counters = null;
    for (int i = 0; i < depth; i++) {
      queue.write(file, nextOffset(), buffers[i], this, i);
    }
    awaitAll();
    queue.sync(file, this, -1);
    awaitAll();
    c.writes += depth;
    check();
  }

  /** Group commit state: the sync group each written buffer waits on, -1 while unsynced. */
  private int[] groupOf;

  private int[] unsynced;
  private int unsyncedCount;
  private int nextGroup;
  private boolean syncInFlight;
  private final GroupSync groupSync = new GroupSync();

  /**
   * The journal's shape: {@code depth} writes kept in flight; whenever writes have completed and
   * are not yet covered by a sync and no sync is running, one fdatasync is issued for all of them,
   * while new writes continue (batches overlap in flight). A write counts once the sync covering it
   * completed.
   */
  void groupCommitStep(WriteCounters c) throws IOException {
    counters = null;
    if (groupOf == null) {
      groupOf = new int[depth];
      unsynced = new int[depth];
    }
    groupSync.counters = c;
    while (freeCount > 0) {
      int b = free[--freeCount];
      groupOf[b] = -1;
      queue.write(file, nextOffset(), buffers[b], groupSync, b);
    }
    queue.await(AWAIT_NANOS);
    startSyncIfIdle();
    check();
  }

  /**
   * One fdatasync in flight at a time: a second one issued while the first runs would wait for the
   * same cache flush behind it, so the writes that complete meanwhile wait for the next one, which
   * then covers all of them (fewer flushes than writes: the point of group commit).
   */
  private void startSyncIfIdle() throws IOException {
    if (syncInFlight || unsyncedCount == 0) {
      return;
    }
    int group = nextGroup++;
    for (int i = 0; i < unsyncedCount; i++) {
      groupOf[unsynced[i]] = group;
    }
    unsyncedCount = 0;
    syncInFlight = true;
    queue.sync(file, groupSync, -1L - group);
    queue.submit();
  }

  /** Completions of group-commit writes (tag = buffer) and syncs (tag = -1 - group). */
  private final class GroupSync implements IoCompletion {
    WriteCounters counters;

    @Override
    public void completed(long tag, int result) {
      if (tag >= 0) {
        if (result != blockSize) {
          failure = new IoOpException(IoOpException.Op.WRITE, 5, 0, blockSize, "short write");
        }
        unsynced[unsyncedCount++] = (int) tag;
        return;
      }
      int group = (int) (-1L - tag);
      syncInFlight = false;
      for (int b = 0; b < depth; b++) {
        if (groupOf[b] == group) {
          groupOf[b] = -1;
          free[freeCount++] = b;
          if (counters != null) {
            counters.writes++;
          }
        }
      }
    }

    @Override
    public void failed(long tag, IoOpException error) {
      failure = error;
      completed(tag, tag >= 0 ? blockSize : 0);
    }
  }

  private void awaitAll() throws IOException {
    while (queue.inFlight() > 0) {
      queue.await(AWAIT_NANOS);
    }
  }

  private void check() throws IOException {
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void completed(long tag, int result) {
    if (tag >= 0) {
      if (result != blockSize) {
        failure = new IoOpException(IoOpException.Op.WRITE, 5, 0, blockSize, "short write");
      }
      if (counters != null) {
        counters.writes++;
        free[freeCount++] = (int) tag;
      }
    }
  }

  @Override
  public void failed(long tag, IoOpException error) {
    failure = error;
    if (counters != null && tag >= 0) {
      free[freeCount++] = (int) tag;
    }
  }

  /** Waits for what is in flight, then frees everything (owner thread). */
  void close() throws IOException {
    if (queue == null) {
      return;
    }
    counters = null;
    awaitAll();
    queue.close();
    for (MemorySegment buffer : buffers) {
      pool.release(buffer);
    }
    pool.close();
    queue = null;
  }
}
