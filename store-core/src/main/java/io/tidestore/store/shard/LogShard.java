package io.tidestore.store.shard;

import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.checkpoint.Checkpoint;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.journal.SyncSharing;
import io.tidestore.store.owner.Owner;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The log-structured {@link ShardStore}: the threading rule and the loop-pass hook, with the work
 * done by parts of one concern each, built here at mount:
 *
 * <ul>
 *   <li>{@link DataWrites} and {@link MetadataWrites} stage mutations into the {@link Journal},
 *       through the {@link MutationGate} (refusals, per-object order) and {@link Staging} (where
 *       each object will be once its mutations apply); {@link SpaceWaits} parks the ones that wait
 *       for space;
 *   <li>durable records apply in order here ({@link #apply}) through the {@link RecordApplier};
 *   <li>{@link ReadPath} serves verified reads;
 *   <li>{@link Checkpointer} and {@link Cleaner} keep replay short and free segments.
 * </ul>
 *
 * Created by {@link ShardMount} on the owner thread; see {@link ShardStore} for the contract.
 */
final class LogShard implements ShardStore, Journal.Listener {
  private final ShardContext ctx;
  private final Owner owner;
  private final Arena arena;
  private final Journal journal;
  private final Staging staging;
  private final RecordApplier applier;
  private final ReadPath reads;
  private final MergeBases bases;
  private final Checkpointer checkpointer;
  private final Cleaner cleaner;
  private final SpaceWaits space;
  private final DataWrites writes;
  private final MetadataWrites metadata;
  private final Scrubber scrubber;
  private final long replayedRecords;
  private boolean closed;

  LogShard(
      ShardContext ctx,
      Arena arena,
      CheckpointSlot[] checkpointSlots,
      Checkpoint checkpoint,
      Replay.Result replay,
      SyncSharing syncSharing,
      Owner owner) {
    this.owner = owner;
    this.ctx = ctx;
    this.arena = arena;
    this.replayedRecords = replay.records();
    this.staging = new Staging(ctx.index);
    this.applier = new RecordApplier(ctx.index, ctx.segments, ctx.cache, staging);
    this.journal =
        new Journal(
            ctx.shard,
            ctx.superblock,
            ctx.config,
            ctx.queue,
            ctx.file,
            ctx.segments,
            arena,
            this,
            replay.lastSeq(),
            ctx.superblock.epoch(),
            replay.headSegment(),
            replay.headOffset(),
            syncSharing);
    this.reads = new ReadPath(ctx, staging, arena);
    this.bases = new MergeBases(ctx, reads, arena);
    this.checkpointer =
        new Checkpointer(
            ctx,
            journal,
            checkpointSlots,
            checkpoint.generation(),
            checkpoint.lastSeq(),
            this::spaceFreed);
    this.cleaner =
        new Cleaner(
            ctx,
            journal,
            checkpointer,
            arena.allocate(ctx.superblock.segmentBytes(), Blocks.SIZE),
            this::writesWaitForSpace);
    MutationGate gate = new MutationGate(ctx, journal, staging);
    this.space = new SpaceWaits(ctx, journal, cleaner, checkpointer, gate);
    this.writes = new DataWrites(ctx, journal, gate, bases, space, cleaner.capacityBlocks());
    this.metadata = new MetadataWrites(ctx, journal, gate, bases, space);
    this.scrubber = new Scrubber(ctx, reads);
  }

  private void spaceFreed() {
    space.retry();
  }

  private boolean writesWaitForSpace() {
    return space.any();
  }

  private void enter() {
    owned();
    journal.checkAge();
  }

  /**
   * Throws unless called by the owner of an open shard: its one thread (reactor engine), or the
   * holder of its lock (classic engine: one thread at a time).
   */
  private void owned() {
    if (!owner.isCurrent()) {
      throw new IllegalStateException(
          "shard "
              + ctx.shard
              + " is owned by "
              + owner.describe()
              + ", called from "
              + Thread.currentThread().getName());
    }
    if (closed) {
      throw new IllegalStateException("shard " + ctx.shard + " is closed");
    }
  }

  @Override
  public int shard() {
    return ctx.shard;
  }

  @Override
  public void scrubSchedule(long intervalNanos, long bytesPerSecond) {
    enter();
    scrubber.schedule(intervalNanos, bytesPerSecond);
  }

  @Override
  public boolean startScrub() {
    enter();
    return scrubber.start();
  }

  @Override
  public long maxWriteBytes() {
    return journal.maxOpBytes();
  }

  @Override
  public boolean readOnly() {
    return ctx.health.readOnly();
  }

  @Override
  public boolean idle() {
    return journal.idle()
        && !space.any()
        && reads.idle()
        && bases.idle()
        && !checkpointer.busy()
        && !cleaner.busy()
        && !scrubber.busy();
  }

  // ---------------------------------------------------------------- mutations

  @Override
  public void write(ObjectKey key, long offset, MemorySegment data, StoreCompletion<Void> done) {
    enter();
    writes.write(key, offset, data, done);
  }

  @Override
  public void truncate(ObjectKey key, long size, StoreCompletion<Void> done) {
    enter();
    metadata.truncate(key, size, done);
  }

  @Override
  public void punch(ObjectKey key, long offset, long length, StoreCompletion<Void> done) {
    enter();
    metadata.punch(key, offset, length, done);
  }

  @Override
  public void remove(ObjectKey key, StoreCompletion<Void> done) {
    enter();
    metadata.remove(key, done);
  }

  @Override
  public void setXattr(ObjectKey key, String name, byte[] value, StoreCompletion<Void> done) {
    enter();
    metadata.setXattr(key, name, value, done);
  }

  @Override
  public void removeXattr(ObjectKey key, String name, StoreCompletion<Void> done) {
    enter();
    metadata.removeXattr(key, name, done);
  }

  // ---------------------------------------------------------------- queries

  /** The applied entry of an existing object; null (and {@code done} failed) when there is none. */
  private ObjectEntry existing(ObjectKey key, StoreCompletion<?> done) {
    ObjectEntry e = ctx.index.get(key);
    if (e == null || !e.exists) {
      done.complete(null, MutationGate.notFound(key));
      return null;
    }
    return e;
  }

  @Override
  public void read(ObjectKey key, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    enter();
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    if (offset < 0) {
      done.complete(null, MutationGate.invalid("negative read offset " + offset));
      return;
    }
    reads.read(e, offset, into, done);
  }

  @Override
  public void stat(ObjectKey key, StoreCompletion<ObjectStat> done) {
    enter();
    ObjectEntry e = existing(key, done);
    if (e != null) {
      done.complete(new ObjectStat(key, e.id, e.size, e.allocatedBlocks()), null);
    }
  }

  @Override
  public void allocation(
      ObjectKey key, long offset, long length, StoreCompletion<Allocation> done) {
    enter();
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    if (offset < 0 || length < 0) {
      done.complete(null, MutationGate.invalid("negative range " + offset + "+" + length));
      return;
    }
    long end = Math.min(e.size, offset + Math.min(length, MAX_OBJECT_BYTES));
    long[] ranges = new long[8];
    int n = 0;
    long runStart = -1;
    for (long b = offset >>> Blocks.SHIFT; (b << Blocks.SHIFT) < end; b++) {
      boolean data = !BlockEntry.isHole(e.block(b));
      long blockStart = Math.max(offset, b << Blocks.SHIFT);
      if (data && runStart < 0) {
        runStart = blockStart;
      } else if (!data && runStart >= 0) {
        ranges = add(ranges, n, runStart, blockStart);
        n += 2;
        runStart = -1;
      }
    }
    if (runStart >= 0) {
      ranges = add(ranges, n, runStart, end);
      n += 2;
    }
    done.complete(new Allocation(e.size, java.util.Arrays.copyOf(ranges, n)), null);
  }

  private static long[] add(long[] ranges, int n, long start, long end) {
    long[] r = n + 2 > ranges.length ? java.util.Arrays.copyOf(ranges, ranges.length * 2) : ranges;
    r[n] = start;
    r[n + 1] = end;
    return r;
  }

  @Override
  public void list(
      long pool, String prefix, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    enter();
    if (limit < 1 || prefix == null) {
      done.complete(
          null, MutationGate.invalid("list needs limit >= 1 and a prefix (may be empty)"));
      return;
    }
    done.complete(page(ctx.index.list(pool, prefix, startAfter, limit), limit), null);
  }

  @Override
  public void listHashRange(
      long pool, HashRange range, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    enter();
    if (limit < 1
        || range == null
        || pool < 0
        || (startAfter != null && startAfter.pool() != pool)) {
      done.complete(
          null,
          MutationGate.invalid(
              "listHashRange needs limit >= 1, a range, a pool >= 0 and a cursor of that pool"));
      return;
    }
    done.complete(page(ctx.index.listHashRange(pool, range, startAfter, limit), limit), null);
  }

  /** A page of the first {@code limit} of {@code keys}; a key past them means there is a next. */
  private static ListPage page(List<ObjectKey> keys, int limit) {
    if (keys.size() > limit) {
      List<ObjectKey> page = keys.subList(0, limit);
      return new ListPage(page, page.get(limit - 1));
    }
    return new ListPage(keys, null);
  }

  @Override
  public void getXattr(ObjectKey key, String name, StoreCompletion<byte[]> done) {
    enter();
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    byte[] v = e.xattr(name);
    if (v == null) {
      done.complete(
          null, new StoreException(Code.NO_ATTRIBUTE, "no xattr '" + name + "' on " + key.name()));
      return;
    }
    done.complete(v.clone(), null);
  }

  // ---------------------------------------------------------------- loop hook, apply

  @Override
  public void endOfPass(long nowNanos) {
    owned(); // no age check: the pass seals the open batch anyway
    pass(nowNanos);
  }

  /** One round of background work: free space, retry waits, start reads, write the batch. */
  private void pass(long now) {
    // Segments that overwrites emptied and a durable checkpoint covers are free at once, without
    // waiting for the next checkpoint.
    ctx.segments.reclaim(checkpointer.durableSeq());
    space.retry();
    reads.pump();
    checkpointer.retryIfDue(now);
    scrubber.tick(now);
    cleaner.maybeStart();
    journal.endOfPass();
  }

  @Override
  public void apply(Batch batch) {
    writes.applied(batch);
    staging.beforeApply(batch);
    try {
      applier.apply(batch);
    } catch (CorruptRecordException ex) {
      // Our own encoding failed to decode: a bug, not a disk fault. Stop writing.
      throw new IllegalStateException("shard " + ctx.shard + ": own record does not decode", ex);
    }
    staging.afterApply(batch);
    checkpointer.afterApply(batch.seq());
  }

  @Override
  public void journalFailed(IoOpException cause) {
    ctx.health.journalFailed(cause);
  }

  @Override
  public void observeJournal(JournalObserver observer) {
    enter();
    journal.observe(observer);
  }

  @Override
  public ShardStats stats() {
    SegmentTable segments = ctx.segments;
    return new ShardStats(
        writes.userBytes(),
        journal.bytesWritten() - cleaner.bytesWritten(),
        cleaner.bytesWritten(),
        journal.records(),
        journal.syncs(),
        segments.count(),
        segments.freeCount(),
        cleaner.segmentsCleaned(),
        segments.totalLive(),
        ctx.index.objectCount(),
        ctx.index.footprintBytes(),
        checkpointer.written(),
        space.maxNanos(),
        space.waits(),
        space.totalNanos(),
        ctx.superblock.segmentBytes(),
        writes.capacityBlocks() * Blocks.SIZE,
        ctx.health.reason(),
        checkpointer.failedNoSpace(),
        scrubber.stats());
  }

  /** Starts a new longest-wait-for-space window (measurements of one phase of a run). */
  void resetSpaceWaitMax() {
    space.resetMax();
  }

  /** Records replay applied when this shard was mounted. */
  long replayedRecords() {
    return replayedRecords;
  }

  /** The index, for tests and fsck in this module. */
  ObjectIndex index() {
    return ctx.index;
  }

  /** Objects the write path holds staging state for (0 once every mutation applied). */
  int stagedObjects() {
    return staging.size();
  }

  /** Asks for a checkpoint of the applied state as soon as possible (after replay at mount). */
  void requestCheckpoint() {
    checkpointer.request();
  }

  /** Drives the queue until {@link #idle()} or the deadline; returns whether idle. */
  boolean awaitIdle(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!idle()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      pass(System.nanoTime());
      try {
        ctx.queue.await(Math.min(left, 50_000_000L));
      } catch (IOException ex) {
        System.getLogger(LogShard.class.getName())
            .log(System.Logger.Level.ERROR, "shard " + ctx.shard + ": await failed: " + ex);
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (!owner.isCurrent()) {
      throw new IllegalStateException(
          "shard " + ctx.shard + " must be closed by its owner, " + owner.describe());
    }
    awaitIdle(30_000_000_000L);
    if (!readOnly() && journal.idle()) {
      checkpointer.requestAtClose();
      awaitIdle(30_000_000_000L);
    }
    closed = true;
    journal.abandon(new StoreException(Code.CLOSED, "shard " + ctx.shard + " closed"));
    checkpointer.close();
    ctx.file.close();
    arena.close();
    ctx.index.releaseMemory();
  }
}
