package io.tidestore.store.journal;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * One journal record in the making and then in flight: the operations it acknowledges, its data
 * blocks (copied in at staging), and once sealed its sequence number, position and metadata
 * block(s). Owner thread only.
 */
public final class Batch {
  /** Where one staged block lives until the batch applies (the write path merges from it). */
  public record PendingBlock(long objectId, int block, MemorySegment slice) {}

  final ArrayList<StoreCompletion<Void>> acks = new ArrayList<>();
  final ArrayList<PendingBlock> pendingBlocks = new ArrayList<>();

  /** The object of each staged user operation, in staging order (cleaner relocations have none). */
  private long[] opObjects = new long[8];

  private int opObjectCount;

  /** The pooled whole-record buffer (metadata room, then data), or null for own-arena buffers. */
  MemorySegment record;

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

  public int dataBlocks() {
    return dataBlocks;
  }

  /** The sealed record's header and deltas. */
  public MemorySegment meta() {
    return meta;
  }

  /** Data block {@code i} of the record. */
  public MemorySegment dataBlock(int i) {
    return data.asSlice((long) i * Blocks.SIZE, Blocks.SIZE);
  }

  /** All data blocks of the record, or null when it has none. */
  public MemorySegment data() {
    return dataBlocks == 0 ? null : data.asSlice(0, (long) dataBlocks * Blocks.SIZE);
  }

  public long recordBytes() {
    return (long) (metaBlocks + dataBlocks) * Blocks.SIZE;
  }

  public ArrayList<PendingBlock> pendingBlocks() {
    return pendingBlocks;
  }

  /** Takes the next data block of this record for the caller to fill; returns its index. */
  public int addDataBlock() {
    return dataBlocks++;
  }

  /** Registers a staged block so later merges of the same object find it. */
  public void pending(long objectId, int block, MemorySegment slice) {
    pendingBlocks.add(new PendingBlock(objectId, block, slice));
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
}
