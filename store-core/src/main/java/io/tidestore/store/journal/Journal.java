package io.tidestore.store.journal;

import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
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
 * becomes one record, written with durable writes (RWF_DSYNC) at the journal head.
 *
 * <h2>When a batch is sealed and written</h2>
 *
 * <ol>
 *   <li>At the end of every event-loop pass ({@link #endOfPass()}): everything staged in the pass
 *       goes out in one record, with one {@code IoQueue.submit()}.
 *   <li>When the next operation would push the record past {@code maxBatchBytes} of data, past the
 *       space left in the open segment, or past {@code maxBatchOps} operations: the batch is sealed
 *       first and the operation starts the next one.
 *   <li>When the oldest operation in the batch has waited {@code maxBatchAgeNanos}: checked on
 *       every call into the shard ({@link #checkAge}), for loops that end passes rarely.
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
public final class Journal implements IoCompletion {
  /** What the shard does with batches. */
  public interface Listener {
    /** Applies a durable batch; every earlier batch has been applied. */
    void apply(Batch batch);

    /** A journal write failed: the shard must go read-only. */
    void journalFailed(IoOpException cause);
  }

  private static final int META_POOL_BYTES = 64 << 10;

  private final int shard;
  private final Superblock geometry;
  private final StoreConfig config;
  private final IoQueue queue;
  private final IoFile file;
  private final SegmentTable segments;
  private final Arena arena;
  private final Listener listener;
  private final BufferPool dataPool;
  private final BufferPool metaPool;
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
  private StoreException failure;
  private long bytesWritten;
  private long records;
  private JournalObserver observer = JournalObserver.NONE;

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
      long headOffset) {
    this.shard = shard;
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
    this.dataPool = new BufferPool(arena, config.maxBatchBytes());
    this.metaPool = new BufferPool(arena, META_POOL_BYTES);
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

  /** Largest data payload one operation may stage (one record never spans segments). */
  public long maxOpBytes() {
    return geometry.segmentBytes() - 4L * Blocks.SIZE;
  }

  /**
   * Makes room in the open batch for one operation of {@code metaBytes} delta bytes and {@code
   * dataBlocks} data blocks, sealing the open batch first if it is full.
   *
   * @param cleaner whether the cleaner asks: it may use the reserved segments
   * @return the batch to stage into, or null when the shard has no space for it
   */
  public Batch reserve(int metaBytes, int dataBlocks, boolean cleaner) {
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
              && len <= geometry.segmentBytes();
      long sealedLen = recordLength(deltas.length(), open.dataBlocks);
      // Seal at the segment boundary rather than let a batch that fits the open segment grow
      // past it and move whole to a new one, which would waste the rest of the open segment.
      boolean boundary = segmentsNeeded(sealedLen) == 0 && segmentsNeeded(len) > 0;
      if (fitsBatch && !boundary && hasSegments(segmentsNeeded(len), cleaner)) {
        return open;
      }
      if (!hasSegments(segmentsNeeded(sealedLen, alone), cleaner)) {
        return null;
      }
      seal();
    } else if (!hasSegments(segmentsNeeded(alone), cleaner)) {
      return null;
    }
    open = newBatch(dataBlocks);
    deltas.reset();
    return open;
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

  private boolean hasSegments(int need, boolean cleaner) {
    return need == 0 || segments.allocatable() >= need + (cleaner ? 0 : config.reserveSegments());
  }

  /** Counts one staged operation into {@code batch} (for the count and age thresholds). */
  public void staged(Batch batch) {
    if (batch.ops++ == 0) {
      batch.firstOpNanos = System.nanoTime();
    }
  }

  /** Seals the open batch if its oldest operation waited too long (rule 3). */
  public void checkAge(long nowNanos) {
    if (open != null && open.ops > 0 && nowNanos - open.firstOpNanos >= config.maxBatchAgeNanos()) {
      seal();
      submitReady();
      submitQuietly();
    }
  }

  /** The loop-pass hook (rule 1): seal the open batch and submit every write that may go. */
  public void endOfPass() {
    if (open != null && open.ops > 0) {
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

  private Batch newBatch(int dataBlocks) {
    Batch b = new Batch();
    int poolBlocks = (int) (dataPool.bufferBytes() / Blocks.SIZE);
    if (dataBlocks <= poolBlocks) {
      b.data = dataPool.take();
      b.pooledData = true;
      b.capacityBlocks = poolBlocks;
    } else {
      b.ownArena = Arena.ofShared();
      b.data = b.ownArena.allocate((long) dataBlocks * Blocks.SIZE, Blocks.SIZE);
      b.capacityBlocks = dataBlocks;
    }
    return b;
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
    if ((long) metaBlocks * Blocks.SIZE <= metaPool.bufferBytes()) {
      b.meta = metaPool.take();
      b.pooledMeta = true;
    } else {
      if (b.ownArena == null) {
        b.ownArena = Arena.ofShared();
      }
      b.meta = b.ownArena.allocate((long) metaBlocks * Blocks.SIZE, Blocks.SIZE);
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

  /** Rule 4: prepares writes for sealed batches while fewer than the cap are in flight. */
  private void submitReady() {
    for (Batch b : sealed) {
      if (writing >= config.maxBatchesInFlight()) {
        return;
      }
      if (b.submitted || b.failed) {
        continue;
      }
      int ops = b.dataBlocks > 0 ? 2 : 1;
      if (queue.capacity() - queue.inFlight() < ops) {
        return;
      }
      b.submitted = true;
      b.submitNanos = System.nanoTime();
      b.writesOutstanding = ops;
      writing++;
      queue.writeDurable(
          file, b.position, b.meta.asSlice(0, (long) b.metaBlocks * Blocks.SIZE), this, b.seq);
      if (b.dataBlocks > 0) {
        queue.writeDurable(
            file,
            b.position + (long) b.metaBlocks * Blocks.SIZE,
            b.data.asSlice(0, (long) b.dataBlocks * Blocks.SIZE),
            this,
            b.seq);
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
    Batch b = find(tag);
    if (b == null) {
      return;
    }
    if (--b.writesOutstanding == 0) {
      writing--;
      if (!b.failed) {
        b.durable = true;
        observer.recordWritten(b.ops, b.recordBytes(), System.nanoTime() - b.submitNanos);
      }
    }
    drain();
  }

  @Override
  public void failed(long tag, IoOpException error) {
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
        sealed.poll();
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
      submitQuietly();
    }
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
    for (Batch b : sealed) {
      failBatch(b, why);
    }
    if (open != null) {
      failBatch(open, why);
      open = null;
    }
    sealed.clear();
  }

  private void release(Batch b) {
    if (b.pooledData) {
      dataPool.give(b.data);
    }
    if (b.pooledMeta) {
      metaPool.give(b.meta);
    }
    if (b.ownArena != null) {
      b.ownArena.close();
    }
    b.data = null;
    b.meta = null;
  }
}
