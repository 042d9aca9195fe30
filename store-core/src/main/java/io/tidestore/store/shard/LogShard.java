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
import io.tidestore.store.api.Transaction;
import io.tidestore.store.checkpoint.Checkpoint;
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
import java.util.SortedMap;

/**
 * The log-structured {@link ShardStore}: the threading rule and the loop-pass hook, with the work
 * done by parts of one concern each, built here at mount:
 *
 * <ul>
 *   <li>{@link DataWrites} and {@link MetadataWrites} stage mutations, {@link TxnWrites} whole
 *       transactions of them, into the {@link Journal}, through the {@link MutationGate} (refusals,
 *       per-object order) and {@link Staging} (where each object will be once its mutations apply);
 *       {@link SpaceWaits} parks the ones that wait for space;
 *   <li>durable records apply in order here ({@link #apply}) through the {@link RecordApplier};
 *   <li>{@link ShardQueries} answers reads (served verified by {@link ReadPath}), stats, listings
 *       and attributes;
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
  private final TxnWrites txns;
  private final ShardQueries queries;
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
    this.txns = new TxnWrites(ctx, journal, gate, bases, space, writes, metadata);
    this.queries = new ShardQueries(ctx, reads);
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

  @Override
  public void submit(Transaction txn, StoreCompletion<Void> done) {
    enter();
    txns.submit(txn, done);
  }

  // ---------------------------------------------------------------- queries

  @Override
  public void read(ObjectKey key, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    enter();
    queries.read(key, offset, into, done);
  }

  @Override
  public void stat(ObjectKey key, StoreCompletion<ObjectStat> done) {
    enter();
    queries.stat(key, done);
  }

  @Override
  public void allocation(
      ObjectKey key, long offset, long length, StoreCompletion<Allocation> done) {
    enter();
    queries.allocation(key, offset, length, done);
  }

  @Override
  public void list(
      long pool, String prefix, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    enter();
    queries.list(pool, prefix, startAfter, limit, done);
  }

  @Override
  public void listHashRange(
      long pool, HashRange range, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    enter();
    queries.listHashRange(pool, range, startAfter, limit, done);
  }

  @Override
  public void getXattr(ObjectKey key, String name, StoreCompletion<byte[]> done) {
    enter();
    queries.getXattr(key, name, done);
  }

  @Override
  public void getXattrs(
      ObjectKey key, String prefix, StoreCompletion<SortedMap<String, byte[]>> done) {
    enter();
    queries.getXattrs(key, prefix, done);
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
    ctx.index.close();
  }
}
