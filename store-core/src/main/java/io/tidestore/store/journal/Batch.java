package io.tidestore.store.journal;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One journal record in the making and then in flight: the operations it acknowledges, its data
 * blocks (copied in at staging), and once sealed its sequence number, position and metadata
 * block(s). Owner thread only.
 *
 * <p>Batches are reused ({@link RecordBuffers#recycle}) once applied and acknowledged, so the
 * durable write path allocates nothing per operation: every list here is a growable array that
 * keeps its capacity across uses.
 */
public final class Batch {
  final ArrayList<StoreCompletion<Void>> acks = new ArrayList<>();

  /**
   * Where each staged block lives until the batch applies (the write path merges from it): object,
   * block number and the bytes, the i-th entry in each array.
   */
  private long[] pendingObjects = new long[8];

  private int[] pendingBlocks = new int[8];
  private MemorySegment[] pendingSlices = new MemorySegment[8];
  private int pendingCount;

  /** The object of each staged user operation, in staging order (cleaner relocations have none). */
  private long[] opObjects = new long[8];

  private int opObjectCount;

  /**
   * The pooled whole-record buffer (metadata room, then data) with its views, or null for own-arena
   * buffers.
   */
  RecordBuffer pooled;

  MemorySegment data;
  MemorySegment meta;
  Arena ownArena;
  int dataBlocks;
  int capacityBlocks;
  int ops;
  long firstOpNanos;
  long submitNanos;

  long seq;
  int segment = -1;
  long offsetInSegment;
  long position;
  int metaBlocks;
  int metaLength;
  int deltaCount;
  int writesOutstanding;

  /** Bytes the record's writes asked for, and how many their completions reported written. */
  long bytesAsked;

  long bytesDone;

  boolean submitted;

  /** Shared-fdatasync mode: the record's writes completed; it waits for a sync to cover it. */
  boolean written;

  /** Shared-fdatasync mode: covered by the fdatasync now in flight. */
  boolean syncing;

  boolean durable;
  boolean failed;

  /**
   * Blocks this record's writes map where there was no data: charged against the shard's capacity
   * from staging until the record applies, when they show in the segments' live counts.
   */
  private int liveBlocksCharged;

  /** Charges {@code blocks} newly mapped blocks to this record (see {@link #liveBlocksCharged}). */
  public void chargeLiveBlocks(int blocks) {
    liveBlocksCharged += blocks;
  }

  public int liveBlocksCharged() {
    return liveBlocksCharged;
  }

  public long seq() {
    return seq;
  }

  public int segment() {
    return segment;
  }

  /** Byte offset of the record in the shard's space. */
  public long position() {
    return position;
  }

  public int metaBlocks() {
    return metaBlocks;
  }

  /** Bytes of deltas in the sealed record (its header's meta length). */
  public int metaLength() {
    return metaLength;
  }

  /** Deltas in the sealed record. */
  public int deltaCount() {
    return deltaCount;
  }

  public int dataBlocks() {
    return dataBlocks;
  }

  /**
   * The sealed record's header and deltas, from its first byte; it may extend past {@link
   * #metaBlocks()} (over the data, in a pooled buffer).
   */
  public MemorySegment meta() {
    return meta;
  }

  /** Data block {@code i} of the record (a view made once per pooled buffer and block). */
  public MemorySegment dataBlock(int i) {
    return pooled != null ? pooled.block(i) : data.asSlice((long) i * Blocks.SIZE, Blocks.SIZE);
  }

  /** crc32c of data block {@code i} (without a view of it, in a pooled buffer). */
  public int dataBlockCrc(CRC32C crc, int i) {
    return pooled != null ? pooled.blockCrc(crc, i) : Blocks.crc(crc, dataBlock(i), 0, Blocks.SIZE);
  }

  public long recordBytes() {
    return (long) (metaBlocks + dataBlocks) * Blocks.SIZE;
  }

  /** Staged blocks registered with {@link #pending}. */
  public int pendingCount() {
    return pendingCount;
  }

  /** The object of the {@code i}th staged block. */
  public long pendingObject(int i) {
    return pendingObjects[i];
  }

  /** The block number of the {@code i}th staged block. */
  public int pendingBlock(int i) {
    return pendingBlocks[i];
  }

  /** The bytes of the {@code i}th staged block. */
  public MemorySegment pendingSlice(int i) {
    return pendingSlices[i];
  }

  /** Takes the next data block of this record for the caller to fill; returns its index. */
  public int addDataBlock() {
    return dataBlocks++;
  }

  /** Registers a staged block so later merges of the same object find it. */
  public void pending(long objectId, int block, MemorySegment slice) {
    if (pendingCount == pendingObjects.length) {
      int n = pendingCount * 2;
      pendingObjects = Arrays.copyOf(pendingObjects, n);
      pendingBlocks = Arrays.copyOf(pendingBlocks, n);
      pendingSlices = Arrays.copyOf(pendingSlices, n);
    }
    pendingObjects[pendingCount] = objectId;
    pendingBlocks[pendingCount] = block;
    pendingSlices[pendingCount] = slice;
    pendingCount++;
  }

  /** Notes that a user operation on {@code objectId} is staged in this batch. */
  public void opOn(long objectId) {
    if (opObjectCount == opObjects.length) {
      opObjects = Arrays.copyOf(opObjects, opObjectCount * 2);
    }
    opObjects[opObjectCount++] = objectId;
  }

  /** How many user operations {@link #opOn} noted. */
  public int opObjectCount() {
    return opObjectCount;
  }

  /** The object of the {@code i}th noted user operation. */
  public long opObject(int i) {
    return opObjects[i];
  }

  /** Acknowledges {@code done} when this batch applies (or fails it). */
  public void onApplied(StoreCompletion<Void> done) {
    if (done != null) {
      acks.add(done);
    }
  }

  /** Back to the state of a new batch, keeping the arrays' capacity (buffers released before). */
  void reset() {
    acks.clear();
    Arrays.fill(pendingSlices, 0, pendingCount, null);
    pendingCount = opObjectCount = liveBlocksCharged = 0;
    pooled = null;
    data = meta = null;
    ownArena = null;
    dataBlocks = capacityBlocks = ops = metaBlocks = metaLength = deltaCount = 0;
    writesOutstanding = 0;
    segment = -1;
    firstOpNanos = submitNanos = seq = offsetInSegment = position = bytesAsked = bytesDone = 0;
    submitted = written = syncing = durable = failed = false;
  }
}
