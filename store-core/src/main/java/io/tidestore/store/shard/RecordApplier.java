package io.tidestore.store.shard;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DeltaReader;
import io.tidestore.store.record.DeltaVisitor;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.segment.SegmentTable;
import java.lang.foreign.MemorySegment;

/**
 * Applies a record's deltas to the index, the segments' live counts and the cache. The same code
 * runs for a freshly durable batch and for replay at mount, so the two cannot disagree. Owner
 * thread only.
 */
final class RecordApplier implements DeltaVisitor {
  /** What the write path learns as a running shard's records apply (nothing at replay). */
  interface StagingHooks {
    /** The oldest staged truncate or remove of object {@code id} applied. */
    void cutApplied(long id);
  }

  private final ObjectIndex index;
  private final SegmentTable segments;
  private final ExtentCacheHook cache;

  /** The running shard's staging, or null at replay (nothing is staged then). */
  private final StagingHooks staging;

  private int dataStart;

  /** The running shard's batch being applied (its data blocks enter the cache), or null. */
  private Batch batch;

  /** An applier for replay at mount: removed objects leave the index at once. */
  static RecordApplier forReplay(ObjectIndex index, SegmentTable segments) {
    return new RecordApplier(index, segments, ExtentCacheHook.NONE, null);
  }

  /**
   * An applier for a running shard: durable data enters the cache, and a removed object stays in
   * the index until {@code staging} drops it (later mutations of it may be staged already).
   */
  RecordApplier(
      ObjectIndex index, SegmentTable segments, ExtentCacheHook cache, StagingHooks staging) {
    this.index = index;
    this.segments = segments;
    this.cache = cache;
    this.staging = staging;
  }

  /**
   * Applies one verified record read back at replay.
   *
   * @param meta the record's header and deltas
   * @param location block location of the record's first block
   */
  void apply(MemorySegment meta, RecordHeader h, int location) throws CorruptRecordException {
    this.dataStart = location + h.metaBlocks();
    DeltaReader.read(meta, RecordDescriptor.HEADER_LENGTH, h.metaLength(), h.deltaCount(), this);
  }

  /**
   * Applies a running shard's durable batch: its deltas as sealed (the lengths the journal encoded
   * into the header, without decoding a header object per record), its data blocks into the cache.
   */
  void apply(Batch durable) throws CorruptRecordException {
    this.dataStart = (int) (durable.position() >>> Blocks.SHIFT) + durable.metaBlocks();
    this.batch = durable;
    DeltaReader.read(
        durable.meta(),
        RecordDescriptor.HEADER_LENGTH,
        durable.metaLength(),
        durable.deltaCount(),
        this);
    this.batch = null;
  }

  private ObjectEntry entry(long id) {
    ObjectEntry e = index.byId(id);
    if (e == null) {
      throw new IllegalStateException("record refers to unknown object id " + id);
    }
    return e;
  }

  @Override
  public void create(long id, long pool, String name) {
    ObjectEntry e = index.byId(id);
    if (e == null) {
      ObjectKey key = new ObjectKey(pool, name);
      ObjectEntry old = index.get(key);
      if (old != null) {
        index.drop(old);
      }
      e = index.insert(key, id);
    }
    e.exists = true;
  }

  @Override
  public void write(
      long id,
      int firstBlock,
      int blocks,
      long endByte,
      MemorySegment crcs,
      long crcOffset,
      int dataIndex) {
    ObjectEntry e = entry(id);
    boolean running = staging != null && batch != null;
    boolean evicts = cache.evictsForWrite(blocks);
    for (int i = 0; i < blocks; i++) {
      int location = dataStart + dataIndex + i;
      int crc = crcs.get(Blocks.INT, crcOffset + 4L * i);
      long old = e.setBlock(firstBlock + i, BlockEntry.pack(location, crc));
      if (!BlockEntry.isHole(old)) {
        segments.releaseLive(BlockEntry.location(old));
      }
      segments.addLive(location);
      if (running && evicts) {
        cache.insertDurable(id, firstBlock + i, batch.dataBlock(dataIndex + i));
      } else if (running) {
        cache.insertDurableIfFree(id, firstBlock + i, batch.dataBlock(dataIndex + i));
      }
    }
    e.size = Math.max(e.size, endByte);
  }

  @Override
  public void truncate(long id, long size) {
    ObjectEntry e = entry(id);
    int keep = (int) Blocks.count(size);
    for (int b = keep; b < e.blockSlots(); b++) {
      long old = e.setBlock(b, BlockEntry.HOLE);
      if (!BlockEntry.isHole(old)) {
        segments.releaseLive(BlockEntry.location(old));
      }
    }
    e.trimBlocks(keep);
    e.size = size;
    appliedCut(id);
    cache.invalidate(id, keep, Long.MAX_VALUE);
  }

  @Override
  public void remove(long id) {
    ObjectEntry e = entry(id);
    for (int b = 0; b < e.blockSlots(); b++) {
      long old = e.setBlock(b, BlockEntry.HOLE);
      if (!BlockEntry.isHole(old)) {
        segments.releaseLive(BlockEntry.location(old));
      }
    }
    e.trimBlocks(0);
    e.size = 0;
    e.exists = false;
    appliedCut(id);
    e.clearXattrs();
    cache.invalidate(id, 0, Long.MAX_VALUE);
    if (staging == null) {
      index.drop(e);
    }
  }

  private void appliedCut(long id) {
    if (staging != null) {
      staging.cutApplied(id);
    }
  }

  @Override
  public void setXattr(long id, String name, byte[] value) {
    entry(id).setXattr(name, value);
  }

  @Override
  public void removeXattr(long id, String name) {
    entry(id).removeXattr(name);
  }

  @Override
  public void punch(long id, int firstBlock, int blocks) {
    ObjectEntry e = entry(id);
    int end = (int) Math.min((long) firstBlock + blocks, e.blockSlots());
    for (int b = firstBlock; b < end; b++) {
      long old = e.setBlock(b, BlockEntry.HOLE);
      if (!BlockEntry.isHole(old)) {
        segments.releaseLive(BlockEntry.location(old));
      }
    }
    cache.invalidate(id, firstBlock, (long) firstBlock + blocks);
  }

  @Override
  public void relocate(long id, int block, int oldLocation, int crc, int dataIndex) {
    ObjectEntry e = index.byId(id);
    // The object may be gone, or the block rewritten since the cleaner copied it: then the newer
    // state wins and the copy is dead on arrival.
    if (e == null || e.block(block) != BlockEntry.pack(oldLocation, crc)) {
      return;
    }
    int location = dataStart + dataIndex;
    e.setBlock(block, BlockEntry.pack(location, crc));
    segments.releaseLive(oldLocation);
    segments.addLive(location);
  }
}
