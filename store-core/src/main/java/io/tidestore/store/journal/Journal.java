package io.tidestore.store.journal;

import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.memory.BudgetedArena;
import io.tidestore.store.memory.MemoryBudgetExceededException;
import io.tidestore.store.memory.MemoryUse;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaWriter;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;

/**
 * A shard's journal with group commit. Mutations are staged into the open {@link Batch}; a batch
 * becomes one record, written at the journal head and made durable as {@link
 * StoreConfig#journalFlush()} says: each record with RWF_DSYNC writes, or plain writes covered by a
 * shared fdatasync (at most one in flight; it covers exactly the records whose writes had completed
 * when it was issued, never one still in flight).
 *
 * <h2>When a batch is sealed and written</h2>
 *
 * <ol>
 *   <li>At the end of every event-loop pass ({@link #endOfPass()}): everything staged in the pass
 *       goes out in one record, with one {@code IoQueue.submit()} - if it can be written now. When
 *       {@code maxBatchesInFlight} records are already being written, sealing would only queue a
 *       small record behind them; instead the batch keeps growing and is sealed the moment a write
 *       completes. Under load records grow with the device's latency (group commit), and an idle
 *       device still gets every pass's batch at once.
 *   <li>When the next operation would push the record past {@code maxBatchBytes} of data, past the
 *       space left in the open segment, or past {@code maxBatchOps} operations: the batch is sealed
 *       first and the operation starts the next one.
 *   <li>When the oldest operation in the batch has waited {@code maxBatchAgeNanos}: checked on
 *       every call into the shard ({@link #checkAge}), for loops that end passes rarely (again only
 *       if it can be written now).
 *   <li>At most {@code maxBatchesInFlight} records are written at once; sealed batches beyond that
 *       wait in order and go out as earlier writes complete.
 * </ol>
 *
 * <h2>Order of application</h2>
 *
 * Records complete in any order but apply strictly in sequence: a durable batch is applied (index
 * updated, cache told, operations acknowledged) only when every earlier batch has applied. Replay
 * stops at the first torn record, so nothing acknowledged can sit behind a hole. If a write fails,
 * that batch and every later one fail with IO_ERROR, nothing of theirs is applied, and the journal
 * stops accepting mutations (the shard goes read-only).
 *
 * <p>Owner thread only.
 */
public final class Journal implements IoCompletion, SyncRound.Member {
  /** What the shard does with batches. */
  public interface Listener {
    /** Applies a durable batch; every earlier batch has been applied. */
    void apply(Batch batch);

    /** A journal write failed: the shard must go read-only. */
    void journalFailed(IoOpException cause);
  }

  private static final System.Logger LOG = System.getLogger(Journal.class.getName());
  private static final int META_POOL_BYTES = 64 << 10;

  /** Completion tag of the shared fdatasync (batch tags are sequence numbers, all >= 1). */
  private static final long SYNC_TAG = -1;

  private final int shard;
  private final Superblock geometry;
  private final StoreConfig config;
  private final IoQueue queue;
  private final IoFile file;
  private final SegmentTable segments;
  private final Arena arena;
  private final Listener listener;

  /**
   * Whole-record buffers: {@code META_POOL_BYTES} of room for the header and deltas, then {@code
   * maxBatchBytes} of data. At seal the metadata is placed right before the data, so the record
   * goes out as one contiguous write instead of two (half the device writes per record).
   */
  private final BufferPool recordPool;

  private final DeltaWriter deltas = new DeltaWriter();
  private final CRC32C crc = new CRC32C();
  private final ArrayDeque<Batch> sealed = new ArrayDeque<>();
  private final long epoch;

  private Batch open;
  private long nextSeq;
  private long lastAppliedSeq;
  private int headSegment;
  private long headOffset;
  private int writing;
  private final boolean sharedSync;
  private boolean syncInFlight;
  private boolean syncQueued;
  private final SyncRound round;
  private long syncs;
  private StoreException failure;
  private StoreException memoryRefusal;
  private long lastRefusalLogNanos;
  private long bytesWritten;
  private long records;
  private JournalObserver observer = JournalObserver.NONE;
  private int segmentsWanted;

  public Journal(
      int shard,
      Superblock geometry,
      StoreConfig config,
      IoQueue queue,
      IoFile file,
      SegmentTable segments,
      Arena arena,
      Listener listener,
      long lastAppliedSeq,
      long epoch,
      int headSegment,
      long headOffset,
      SyncRound round) {
    this.shard = shard;
    this.round = round;
    this.geometry = geometry;
    this.config = config;
    this.queue = queue;
    this.file = file;
    this.segments = segments;
    this.arena = arena;
    this.listener = listener;
    this.lastAppliedSeq = lastAppliedSeq;
    this.nextSeq = lastAppliedSeq + 1;
    this.epoch = epoch;
    this.headSegment = headSegment;
    this.headOffset = headOffset;
    this.sharedSync = config.journalFlush() == JournalFlush.SHARED_FDATASYNC;
    // The open batch plus those in flight: the steady state allocates nothing after mount.
    int buffers = poolBuffers(config);
    this.recordPool =
        new BufferPool(arena, META_POOL_BYTES + (long) config.maxBatchBytes(), buffers);
  }

  /** Buffers each of the journal's pools allocates at mount. */
  static int poolBuffers(StoreConfig config) {
    return config.maxBatchesInFlight() + 1;
  }

  /** Native bytes the journal allocates at mount (its pools' first buffers). */
  public static long fixedBytes(StoreConfig config) {
    return (long) poolBuffers(config) * (config.maxBatchBytes() + META_POOL_BYTES);
  }

  /** The delta buffer of the open batch; valid after a successful {@link #reserve}. */
  public DeltaWriter deltas() {
    return deltas;
  }

  public long lastAppliedSeq() {
    return lastAppliedSeq;
  }

  public long epoch() {
    return epoch;
  }

  public long bytesWritten() {
    return bytesWritten;
  }

  public long records() {
    return records;
  }

  /** Shared fdatasyncs completed (0 in RWF_DSYNC mode): records / syncs is the sharing. */
  public long syncs() {
    return syncs;
  }

  /** Who hears about each durable record (metrics); {@link JournalObserver#NONE} by default. */
  public void observe(JournalObserver observer) {
    this.observer = observer;
  }

  /** Whether nothing is staged, sealed or in flight. */
  public boolean idle() {
    return open == null && sealed.isEmpty();
  }

  /** Whether some batch is staged, sealed or in flight. */
  public boolean busy() {
    return !idle();
  }

  /**
   * The NO_MEMORY error if the latest {@link #reserve} returned null because {@code --memory-limit}
   * refused a buffer, else null; reading it clears it.
   */
  public StoreException takeMemoryRefusal() {
    StoreException e = memoryRefusal;
    memoryRefusal = null;
    return e;
  }

  /** The failure that stopped the journal, or null. */
  public StoreException failure() {
    return failure;
  }

  /**
   * Where replay must look for the record after the last applied one: the oldest unapplied sealed
   * batch's position, or the journal head.
   */
  public int nextRecordSegment() {
    Batch b = sealed.peek();
    return b != null ? b.segment : headSegment;
  }

  public long nextRecordOffset() {
    Batch b = sealed.peek();
    return b != null ? b.offsetInSegment : headOffset;
  }

  /** Blocks left in the open segment (0 when none is open). */
  public int headRoomBlocks() {
    return headSegment < 0 ? 0 : (int) ((geometry.segmentBytes() - headOffset) / Blocks.SIZE);
  }

  /**
   * Blocks a new record can still be placed in without opening more segments than are allocatable:
   * the room left in the open segment plus the allocatable segments, less what the open batch will
   * take when sealed.
   */
  public long placeableBlocks() {
    long openBlocks =
        open == null ? 0 : RecordDescriptor.metaBlocks(deltas.length()) + open.dataBlocks;
    return headRoomBlocks()
        + (long) segments.allocatable() * (geometry.segmentBytes() / Blocks.SIZE)
        - openBlocks;
  }

  /** New segments the last {@link #reserve} that found no space needed. */
  public int segmentsWanted() {
    return segmentsWanted;
  }

  /**
   * Largest data payload one write may stage: {@link ShardStore#MAX_WRITE_BYTES}, or less when a
   * segment cannot hold that record (one record never spans segments). The record's metadata is
   * reckoned for the worst case, a write that also creates an object with the longest name.
   */
  public long maxOpBytes() {
    int segmentBlocks = geometry.segmentBytes() / Blocks.SIZE;
    int meta =
        RecordDescriptor.metaBlocks(
            DeltaWriter.createLength(ObjectKey.MAX_NAME_BYTES)
                + DeltaWriter.writeLength(segmentBlocks));
    return Math.min(ShardStore.MAX_WRITE_BYTES, (long) (segmentBlocks - meta) * Blocks.SIZE);
  }

  /**
   * Makes room in the open batch for one operation of {@code metaBytes} delta bytes and {@code
   * dataBlocks} data blocks, sealing the open batch first if it is full.
   *
   * <p>The last {@code reserveSegments} allocatable segments are the cleaner's, so that it can
   * always relocate a victim and make progress: user writes may not open them. Operations that only
   * free space (remove, shrinking truncate) may open all but the last one; relocations may open
   * every segment.
   *
   * @param freesSpace whether the operation only frees space (may dip into the reserve)
   * @return the batch to stage into, or null when the shard has no space for it
   */
  public Batch reserve(int metaBytes, int dataBlocks, boolean freesSpace) {
    return reserve(metaBytes, dataBlocks, freesSpace ? 1 : config.reserveSegments());
  }

  /** {@link #reserve} for the cleaner's relocations: may open the last free segment. */
  public Batch reserveRelocation(int metaBytes, int dataBlocks) {
    return reserve(metaBytes, dataBlocks, 0);
  }

  private Batch reserve(int metaBytes, int dataBlocks, int keep) {
    // A refusal describes only the latest call, so an older one never relabels a NO_SPACE.
    memoryRefusal = null;
    if (failure != null) {
      return null;
    }
    long alone = recordLength(metaBytes, dataBlocks);
    if (alone > geometry.segmentBytes()) {
      return null;
    }
    if (open != null) {
      long len = recordLength(deltas.length() + metaBytes, open.dataBlocks + dataBlocks);
      boolean fitsBatch =
          open.ops < config.maxBatchOps()
              && open.dataBlocks + dataBlocks <= open.capacityBlocks
              && metaBytesOf(deltas.length() + metaBytes) <= open.meta.byteSize()
              && len <= geometry.segmentBytes();
      long sealedLen = recordLength(deltas.length(), open.dataBlocks);
      // Seal at the segment boundary rather than let a batch that fits the open segment grow
      // past it and move whole to a new one, which would waste the rest of the open segment.
      boolean boundary = segmentsNeeded(sealedLen) == 0 && segmentsNeeded(len) > 0;
      if (fitsBatch && !boundary && hasSegments(segmentsNeeded(len), keep)) {
        return open;
      }
      if (!hasSegments(segmentsNeeded(sealedLen, alone), keep)) {
        segmentsWanted = segmentsNeeded(sealedLen, alone);
        return null;
      }
      seal();
    } else if (!hasSegments(segmentsNeeded(alone), keep)) {
      segmentsWanted = segmentsNeeded(alone);
      return null;
    }
    try {
      open = newBatch(dataBlocks, metaBytes);
    } catch (MemoryBudgetExceededException e) {
      refusedMemory(e);
      return null;
    }
    deltas.reset();
    return open;
  }

  private static long metaBytesOf(int metaLength) {
    return (long) RecordDescriptor.metaBlocks(metaLength) * Blocks.SIZE;
  }

  private void refusedMemory(MemoryBudgetExceededException e) {
    memoryRefusal =
        new StoreException(
            StoreException.Code.NO_MEMORY,
            "shard " + shard + " has no memory for a journal batch: " + e.getMessage(),
            e);
    long now = System.nanoTime();
    // Under overload every write could be refused; one line a second says it without flooding.
    if (now - lastRefusalLogNanos > 1_000_000_000L || lastRefusalLogNanos == 0) {
      lastRefusalLogNanos = now;
      LOG.log(System.Logger.Level.WARNING, memoryRefusal.getMessage());
    }
  }

  /** New segments the journal must open to place records of these lengths, in order. */
  private int segmentsNeeded(long... lengths) {
    int need = 0;
    long off = headSegment >= 0 ? headOffset : Long.MAX_VALUE / 2;
    for (long len : lengths) {
      if (off + len > geometry.segmentBytes()) {
        need++;
        off = 0;
      }
      off += len;
    }
    return need;
  }

  private boolean hasSegments(int need, int keep) {
    return need == 0 || segments.allocatable() >= need + keep;
  }

  /** Counts one staged operation into {@code batch} (for the count and age thresholds). */
  public void staged(Batch batch) {
    if (batch.ops++ == 0) {
      batch.firstOpNanos = System.nanoTime();
    }
  }

  /** Seals the open batch if its oldest operation waited too long (rule 3). */
  public void checkAge(long nowNanos) {
    if (open != null
        && open.ops > 0
        && nowNanos - open.firstOpNanos >= config.maxBatchAgeNanos()
        && canWriteNow()) {
      seal();
      submitReady();
      submitQuietly();
    }
  }

  /** The loop-pass hook (rule 1): seal the open batch and submit every write that may go. */
  public void endOfPass() {
    if (open != null && open.ops > 0 && canWriteNow()) {
      seal();
    }
    submitReady();
    submitQuietly();
  }

  private long recordLength(int metaLength, int dataBlocks) {
    return (long) (RecordDescriptor.metaBlocks(metaLength) + dataBlocks) * Blocks.SIZE;
  }

  private boolean fitsHead(long len) {
    return headSegment >= 0 && headOffset + len <= geometry.segmentBytes();
  }

  /**
   * A batch with its data and metadata buffers: both are taken here, not at seal, so a refusal of
   * {@code --memory-limit} fails the operation that asked, never a batch that holds others. A batch
   * that fits a pooled record buffer gets one (one write at submit); a larger one gets buffers of
   * its own arena (two writes).
   */
  private Batch newBatch(int dataBlocks, int metaBytes) {
    Batch b = new Batch();
    try {
      int poolBlocks = config.maxBatchBytes() / Blocks.SIZE;
      long metaNeed = metaBytesOf(metaBytes);
      if (dataBlocks <= poolBlocks && metaNeed <= META_POOL_BYTES) {
        b.record = recordPool.take();
        b.meta = b.record.asSlice(0, META_POOL_BYTES);
        b.data = b.record.asSlice(META_POOL_BYTES);
        b.capacityBlocks = poolBlocks;
      } else {
        b.data = ownArena(b).allocate(Math.max(1L, dataBlocks) * Blocks.SIZE, Blocks.SIZE);
        b.capacityBlocks = Math.max(1, dataBlocks);
        b.meta = ownArena(b).allocate(Math.max(metaNeed, META_POOL_BYTES), Blocks.SIZE);
      }
      return b;
    } catch (MemoryBudgetExceededException e) {
      release(b);
      throw e;
    }
  }

  private Arena ownArena(Batch b) {
    if (b.ownArena == null) {
      b.ownArena =
          BudgetedArena.like(arena, MemoryUse.IO_BUFFERS, "journal batch of shard " + shard);
    }
    return b.ownArena;
  }

  /** Seals the open batch: numbers it, places it at the head, encodes its header. */
  private void seal() {
    Batch b = open;
    open = null;
    if (b == null) {
      return;
    }
    int metaLength = deltas.length();
    int metaBlocks = RecordDescriptor.metaBlocks(metaLength);
    long len = (long) (metaBlocks + b.dataBlocks) * Blocks.SIZE;
    if (!fitsHead(len)) {
      if (headSegment >= 0) {
        segments.state(headSegment, SegmentTable.USED);
      }
      headSegment = segments.allocate();
      headOffset = 0;
    }
    b.seq = nextSeq++;
    b.metaBlocks = metaBlocks;
    if (b.record != null) {
      // Right before the data: header, deltas and data form one contiguous record in memory.
      b.meta = b.record.asSlice(META_POOL_BYTES - (long) metaBlocks * Blocks.SIZE);
    }
    MemorySegment meta = b.meta.asSlice(0, (long) metaBlocks * Blocks.SIZE);
    MemorySegment.copy(deltas.bytes(), 0, meta, RecordDescriptor.HEADER_LENGTH, metaLength);
    long tail = RecordDescriptor.HEADER_LENGTH + (long) metaLength;
    meta.asSlice(tail, meta.byteSize() - tail).fill((byte) 0);
    new RecordHeader(shard, b.seq, epoch, metaLength, b.dataBlocks, deltas.count())
        .encode(meta, crc);
    deltas.reset();
    if (headSegment < 0) {
      // reserve() checked for space; reaching here means the accounting is broken.
      b.failed = true;
      sealed.add(b);
      fail(b, new IoOpException(IoOpException.Op.WRITE_DURABLE, 28, 0, len, "no free segment"));
      return;
    }
    b.segment = headSegment;
    b.offsetInSegment = headOffset;
    b.position = geometry.segmentOffset(headSegment) + headOffset;
    headOffset += len;
    segments.noteRecord(headSegment, b.seq);
    sealed.add(b);
    if (failure != null) {
      failBatch(b, failure);
    }
  }

  /**
   * Whether a batch sealed now would be written at once: fewer than {@code maxBatchesInFlight}
   * records are being written and none sealed earlier waits for a slot.
   */
  private boolean canWriteNow() {
    if (sharedSync && syncInFlight) {
      return false;
    }
    int busy = writing;
    for (Batch b : sealed) {
      if (!b.submitted && !b.failed) {
        busy++;
      }
    }
    return busy < config.maxBatchesInFlight();
  }

  /** Rule 4: prepares writes for sealed batches while fewer than the cap are in flight. */
  private void submitReady() {
    for (Batch b : sealed) {
      if (writing >= config.maxBatchesInFlight()) {
        return;
      }
      if (b.submitted || b.failed) {
        continue;
      }
      int ops = b.record != null || b.dataBlocks == 0 ? 1 : 2;
      if (queue.capacity() - queue.inFlight() < ops) {
        return;
      }
      b.submitted = true;
      b.submitNanos = System.nanoTime();
      b.writesOutstanding = ops;
      writing++;
      MemorySegment meta = b.meta.asSlice(0, (long) b.metaBlocks * Blocks.SIZE);
      long dataAt = b.position + (long) b.metaBlocks * Blocks.SIZE;
      if (b.record != null) {
        MemorySegment whole = b.meta.asSlice(0, b.recordBytes());
        if (sharedSync) {
          queue.write(file, b.position, whole, this, b.seq);
        } else {
          queue.writeDurable(file, b.position, whole, this, b.seq);
        }
      } else if (sharedSync) {
        queue.write(file, b.position, meta, this, b.seq);
        if (b.dataBlocks > 0) {
          queue.write(
              file, dataAt, b.data.asSlice(0, (long) b.dataBlocks * Blocks.SIZE), this, b.seq);
        }
      } else {
        queue.writeDurable(file, b.position, meta, this, b.seq);
        if (b.dataBlocks > 0) {
          queue.writeDurable(
              file, dataAt, b.data.asSlice(0, (long) b.dataBlocks * Blocks.SIZE), this, b.seq);
        }
      }
    }
  }

  /**
   * Shared-fdatasync mode: when no sync is in flight, issues one covering every record written and
   * not yet covered. A second sync while one runs would only queue behind the same cache flush, so
   * records that complete meanwhile wait and share the next one.
   */
  private void startSyncIfIdle() {
    // Runs after a failure too: records older than the failed one whose writes completed are not
    // concerned by it and still become durable (and are acknowledged) through a sync of their own.
    // Waits for this journal's writes in flight, so one sync covers them all, and for the queue's
    // current round of syncs (SyncRound).
    if (!sharedSync || syncInFlight || syncQueued || writing > 0 || !hasUncovered()) {
      return;
    }
    if (queue.capacity() == queue.inFlight()) {
      return; // a completion frees a slot and comes back here
    }
    if (round.request(this)) {
      issueSync();
    } else {
      syncQueued = true;
    }
  }

  @Override
  public boolean startQueuedSync() {
    syncQueued = false;
    if (syncInFlight || !hasUncovered() || queue.capacity() == queue.inFlight()) {
      return false;
    }
    issueSync();
    return true;
  }

  private boolean hasUncovered() {
    for (Batch b : sealed) {
      if (b.written && !b.syncing && !b.durable && !b.failed) {
        return true;
      }
    }
    return false;
  }

  /** One fdatasync covering every record whose writes completed and that no sync covers yet. */
  private void issueSync() {
    for (Batch b : sealed) {
      if (b.written && !b.syncing && !b.durable && !b.failed) {
        b.syncing = true;
      }
    }
    syncInFlight = true;
    queue.sync(file, this, SYNC_TAG);
  }

  private void syncCompleted() {
    syncInFlight = false;
    syncs++;
    long now = System.nanoTime();
    for (Batch b : sealed) {
      if (b.syncing) {
        b.syncing = false;
        if (!b.failed) {
          b.durable = true;
          observer.recordWritten(b.ops, b.recordBytes(), now - b.submitNanos);
        }
      }
    }
  }

  private void syncFailed(IoOpException error) {
    syncInFlight = false;
    for (Batch b : sealed) {
      if (b.syncing) {
        b.syncing = false;
        if (!b.failed) {
          // Fails this record and every later one: none may be acknowledged past a hole.
          fail(b, error);
          return;
        }
      }
    }
  }

  private void submitQuietly() {
    try {
      queue.submit();
    } catch (java.io.IOException e) {
      IoOpException err =
          new IoOpException(IoOpException.Op.WRITE_DURABLE, 5, 0, 0, "submit failed: " + e);
      for (Batch b : sealed) {
        if (b.submitted && !b.durable && !b.failed) {
          fail(b, err);
          return;
        }
      }
    }
  }

  private Batch find(long seq) {
    for (Batch b : sealed) {
      if (b.seq == seq) {
        return b;
      }
    }
    return null;
  }

  @Override
  public void completed(long tag, int result) {
    if (tag == SYNC_TAG) {
      syncCompleted();
      round.finished();
      drain();
      return;
    }
    Batch b = find(tag);
    if (b == null) {
      return;
    }
    if (--b.writesOutstanding == 0) {
      writing--;
      // A batch failed meanwhile is never durable, never applied.
      if (!b.failed && sharedSync) {
        b.written = true;
      } else if (!b.failed) {
        b.durable = true;
        observer.recordWritten(b.ops, b.recordBytes(), System.nanoTime() - b.submitNanos);
      }
    }
    drain();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    if (tag == SYNC_TAG) {
      syncFailed(error);
      round.finished();
      drain();
      return;
    }
    Batch b = find(tag);
    if (b == null) {
      return;
    }
    if (--b.writesOutstanding == 0) {
      writing--;
    }
    if (!b.failed) {
      fail(b, error);
    }
    drain();
  }

  /** Applies durable batches in sequence order, then submits what waited for a slot. */
  private void drain() {
    while (!sealed.isEmpty()) {
      Batch head = sealed.peek();
      if (head.failed) {
        if (head.writesOutstanding > 0) {
          break;
        }
        release(sealed.poll());
        continue;
      }
      if (!head.durable) {
        break;
      }
      sealed.poll();
      bytesWritten += head.recordBytes();
      records++;
      listener.apply(head);
      lastAppliedSeq = head.seq;
      release(head);
      for (StoreCompletion<Void> ack : head.acks) {
        ack.complete(null, null);
      }
    }
    if (failure == null) {
      submitReady();
      // Rule 1's deferred seal: a write slot is free, so the batch that grew meanwhile goes now.
      if (open != null && open.ops > 0 && canWriteNow()) {
        seal();
        submitReady();
      }
    }
    startSyncIfIdle();
    submitQuietly();
  }

  private void fail(Batch from, IoOpException cause) {
    if (failure == null) {
      failure =
          new StoreException(
              StoreException.Code.IO_ERROR,
              "shard "
                  + shard
                  + " journal write of record "
                  + from.seq
                  + " failed: "
                  + cause.getMessage(),
              cause);
      listener.journalFailed(cause);
    }
    boolean on = false;
    for (Batch b : sealed) {
      on |= b == from;
      if (on) {
        failBatch(b, failure);
      }
    }
    if (open != null) {
      Batch o = open;
      open = null;
      deltas.reset();
      failBatch(o, failure);
      release(o);
    }
  }

  private static void failBatch(Batch b, StoreException why) {
    b.failed = true;
    for (StoreCompletion<Void> ack : b.acks) {
      ack.complete(null, why);
    }
    b.acks.clear();
  }

  /** Fails everything still staged or in flight (the shard is closing without waiting). */
  public void abandon(StoreException why) {
    round.forget(this);
    syncQueued = false;
    // The shard frees its arena right after; batch-owned arenas go too, so no reservation outlives
    // the shard.
    for (Batch b : sealed) {
      failBatch(b, why);
      release(b);
    }
    if (open != null) {
      failBatch(open, why);
      release(open);
      open = null;
    }
    sealed.clear();
  }

  private void release(Batch b) {
    if (b.record != null) {
      recordPool.give(b.record);
      b.record = null;
    }
    if (b.ownArena != null) {
      b.ownArena.close();
      b.ownArena = null;
    }
    b.data = null;
    b.meta = null;
  }
}
