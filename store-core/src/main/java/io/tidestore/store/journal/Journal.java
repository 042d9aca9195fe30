package io.tidestore.store.journal;

import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.memory.MemoryBudgetExceededException;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaWriter;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
public final class Journal implements SealedRecords.Owner {
  /** What the shard does with batches. */
  public interface Listener {
    /** Applies a durable batch; every earlier batch has been applied. */
    void apply(Batch batch);

    /** A journal write failed: the shard must go read-only. */
    void journalFailed(IoOpException cause);
  }

  private static final System.Logger LOG = System.getLogger(Journal.class.getName());

  private final int shard;
  private final Superblock geometry;
  private final StoreConfig config;
  private final SegmentTable segments;
  private final JournalHead head;
  private final RecordBuffers buffers;
  private final SealedRecords records;
  private final DeltaWriter deltas = new DeltaWriter();
  private final CRC32C crc = new CRC32C();
  private final long epoch;

  private Batch open;
  private long nextSeq;
  private StoreException memoryRefusal;
  private long lastRefusalLogNanos;
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
      SyncSharing sharing) {
    this.shard = shard;
    this.geometry = geometry;
    this.config = config;
    this.segments = segments;
    this.epoch = epoch;
    this.nextSeq = lastAppliedSeq + 1;
    this.head = new JournalHead(geometry, segments, headSegment, headOffset);
    this.buffers = new RecordBuffers(config, arena, "shard " + shard, queue);
    this.records =
        new SealedRecords(
            shard,
            queue,
            file,
            config.maxBatchesInFlight(),
            config.journalFlush() == JournalFlush.SHARED_FDATASYNC,
            sharing,
            buffers,
            listener,
            this,
            lastAppliedSeq);
  }

  /** Native bytes the journal allocates at mount (its pooled record buffers). */
  public static long fixedBytes(StoreConfig config) {
    return RecordBuffers.fixedBytes(config);
  }

  /** The delta buffer of the open batch; valid after a successful {@link #reserve}. */
  public DeltaWriter deltas() {
    return deltas;
  }

  public long lastAppliedSeq() {
    return records.lastAppliedSeq();
  }

  public long epoch() {
    return epoch;
  }

  public long bytesWritten() {
    return records.bytesWritten();
  }

  public long records() {
    return records.records();
  }

  /** Shared fdatasyncs completed (0 in RWF_DSYNC mode): records / syncs is the sharing. */
  public long syncs() {
    return records.syncs();
  }

  /** Who hears about each durable record (metrics); {@link JournalObserver#NONE} by default. */
  public void observe(JournalObserver observer) {
    records.observe(observer);
  }

  /** Whether nothing is staged, sealed or in flight. */
  public boolean idle() {
    return open == null && records.isEmpty();
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
    return records.failure();
  }

  /**
   * Where replay must look for the record after the last applied one: the oldest unapplied sealed
   * batch's position, or the journal head.
   */
  public int nextRecordSegment() {
    Batch b = records.oldest();
    return b != null ? b.segment : head.segment();
  }

  public long nextRecordOffset() {
    Batch b = records.oldest();
    return b != null ? b.offsetInSegment : head.offset();
  }

  /** Blocks left in the open segment (0 when none is open). */
  public int headRoomBlocks() {
    return head.roomBlocks();
  }

  /**
   * Blocks a new record can still be placed in without opening more segments than are allocatable:
   * the room left in the open segment plus the allocatable segments, less what the open batch will
   * take when sealed.
   */
  public long placeableBlocks() {
    long openBlocks =
        open == null ? 0 : RecordDescriptor.metaBlocks(deltas.length()) + open.dataBlocks;
    return head.roomBlocks()
        + (long) segments.allocatable() * (geometry.segmentBytes() / Blocks.SIZE)
        - openBlocks;
  }

  /**
   * New segments the last {@link #reserve} that found no space needed for its own operation: those
   * the open batch needs to be placed are not counted, since it is sealed and placed whether or not
   * the operation waits (so 0 when only the open batch lacks a segment).
   */
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
   * Whether one operation of {@code metaBytes} delta bytes and {@code dataBlocks} data blocks fits
   * a record of its own (a record never spans segments): a transaction checks this before it
   * stages.
   */
  public boolean fitsOneRecord(int metaBytes, int dataBlocks) {
    return metaBytes >= 0
        && dataBlocks >= 0
        && !head.tooLong(JournalHead.recordLength(metaBytes, dataBlocks));
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
    if (records.failure() != null) {
      return null;
    }
    long alone = JournalHead.recordLength(metaBytes, dataBlocks);
    if (head.tooLong(alone)) {
      return null;
    }
    if (open != null) {
      long len =
          JournalHead.recordLength(deltas.length() + metaBytes, open.dataBlocks + dataBlocks);
      boolean fitsBatch =
          open.ops < config.maxBatchOps()
              && open.dataBlocks + dataBlocks <= open.capacityBlocks
              && RecordBuffers.metaBytes(deltas.length() + metaBytes) <= open.meta.byteSize()
              && !head.tooLong(len);
      long sealedLen = JournalHead.recordLength(deltas.length(), open.dataBlocks);
      // Seal at the segment boundary rather than let a batch that fits the open segment grow
      // past it and move whole to a new one, which would waste the rest of the open segment.
      boolean boundary = head.segmentsNeeded(sealedLen) == 0 && head.segmentsNeeded(len) > 0;
      if (fitsBatch && !boundary && head.hasSegments(head.segmentsNeeded(len), keep)) {
        return open;
      }
      if (!head.hasSegments(head.segmentsNeeded(sealedLen, alone), keep)) {
        // The open batch goes out whether or not this operation waits, and the segment it opens
        // is its own (its operations were admitted, relocations may take the reserve): what this
        // operation waits for is only the segments it adds.
        segmentsWanted = head.segmentsNeeded(sealedLen, alone) - head.segmentsNeeded(sealedLen);
        return null;
      }
      seal();
    } else if (!head.hasSegments(head.segmentsNeeded(alone), keep)) {
      segmentsWanted = head.segmentsNeeded(alone);
      return null;
    }
    try {
      open = buffers.newBatch(dataBlocks, metaBytes);
    } catch (MemoryBudgetExceededException e) {
      refusedMemory(e);
      return null;
    }
    deltas.reset();
    return open;
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

  /** Counts one staged operation into {@code batch} (for the count and age thresholds). */
  public void staged(Batch batch) {
    if (batch.ops++ == 0) {
      batch.firstOpNanos = System.nanoTime();
    }
  }

  /**
   * Seals the open batch if its oldest operation waited too long (rule 3). Reads the clock only
   * when a batch is open: it runs on every call into the shard, reads included.
   */
  public void checkAge() {
    if (open != null && open.ops > 0) {
      checkAge(System.nanoTime());
    }
  }

  /** {@link #checkAge()} at {@code nowNanos}. */
  public void checkAge(long nowNanos) {
    if (open != null
        && open.ops > 0
        && nowNanos - open.firstOpNanos >= config.maxBatchAgeNanos()
        && records.canWriteNow()) {
      seal();
      records.submitReady();
      records.submitQuietly();
    }
  }

  /** The loop-pass hook (rule 1): seal the open batch and submit every write that may go. */
  public void endOfPass() {
    if (open != null && open.ops > 0 && records.canWriteNow()) {
      seal();
    }
    records.submitReady();
    records.submitQuietly();
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
    b.seq = nextSeq++;
    b.metaBlocks = metaBlocks;
    b.metaLength = metaLength;
    b.deltaCount = deltas.count();
    // Right before the data: header, deltas and data form one contiguous record in memory.
    RecordBuffers.placeMeta(b, metaBlocks);
    MemorySegment meta = b.meta;
    deltas.copyTo(meta, RecordDescriptor.HEADER_LENGTH);
    long tail = RecordDescriptor.HEADER_LENGTH + (long) metaLength;
    Blocks.zero(meta, tail, (long) metaBlocks * Blocks.SIZE - tail);
    RecordHeader.encode(
        meta,
        b.pooled != null ? b.pooled.placedBytes(metaBlocks) : meta.asByteBuffer(),
        crc,
        shard,
        b.seq,
        epoch,
        metaLength,
        b.dataBlocks,
        b.deltaCount,
        geometry.storeId());
    deltas.reset();
    if (!head.place(b, len, b.seq)) {
      // reserve() checked for space; reaching here means the accounting is broken.
      records.addUnplaceable(b, len);
      return;
    }
    records.add(b);
  }

  @Override
  public void slotFreed() {
    // Rule 1's deferred seal: a write slot is free, so the batch that grew meanwhile goes now.
    if (open != null && open.ops > 0 && records.canWriteNow()) {
      seal();
      records.submitReady();
    }
  }

  @Override
  public void failOpen(StoreException failure) {
    if (open != null) {
      Batch o = open;
      open = null;
      deltas.reset();
      SealedRecords.failBatch(o, failure);
      buffers.release(o);
    }
  }

  /** Fails everything still staged or in flight (the shard is closing without waiting). */
  public void abandon(StoreException why) {
    records.abandon(why);
    if (open != null) {
      SealedRecords.failBatch(open, why);
      buffers.release(open);
      open = null;
    }
  }
}
