package io.tidestore.store.shard;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaReader;
import io.tidestore.store.record.DeltaVisitor;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.segment.SegmentTable;
import java.lang.foreign.MemorySegment;

/**
 * Reclaims segments by relocating their live blocks to the journal head. When free segments drop to
 * {@code cleanerLowWaterSegments}, it picks a victim ({@link CleanerPolicy}), reads it whole, walks
 * its records, and re-logs every block the index still points at as a RELOCATE delta (which applies
 * only if the block was not rewritten meanwhile). Once the victim holds no live block and a
 * checkpoint covers its records, it is free. One victim at a time; the relocations go through the
 * same ordered journal as user writes, so a crash at any point loses nothing. Owner thread only.
 */
final class Cleaner implements IoCompletion, DeltaVisitor {
  private static final System.Logger LOG = System.getLogger(Cleaner.class.getName());

  private final LogShard shard;

  /** One segment, allocated with the shard's buffers at mount. */
  private final MemorySegment buffer;

  private int victim = -1;
  private boolean reading;
  private int relocationsInFlight;
  private long bytesWritten;
  private long segmentsCleaned;
  private int recordLocation;
  private long recordOffset;
  private boolean stalled;

  Cleaner(LogShard shard, MemorySegment buffer) {
    this.shard = shard;
    this.buffer = buffer;
  }

  boolean busy() {
    return reading || relocationsInFlight > 0;
  }

  long bytesWritten() {
    return bytesWritten;
  }

  long segmentsCleaned() {
    return segmentsCleaned;
  }

  /**
   * Whether waiting can help a write that found no space: cleaning or a checkpoint is under way, a
   * segment only waits for a checkpoint, or some segment holds enough dead blocks to reclaim.
   */
  boolean canMakeSpace() {
    if (busy() || victim >= 0 || shard.checkpointer.busy()) {
      return true;
    }
    SegmentTable segs = shard.segments;
    for (int s = 0; s < segs.count(); s++) {
      if (segs.state(s) == SegmentTable.USED && segs.live(s) == 0) {
        return true;
      }
    }
    // Relocation needs a segment to write into.
    return segs.allocatable() > 0 && pickVictim() >= 0;
  }

  /** Starts cleaning a victim if space runs low and nothing is being cleaned. */
  void maybeStart() {
    SegmentTable segs = shard.segments;
    if (victim >= 0
        || shard.readOnly()
        || segs.freeCount() > shard.config.cleanerLowWaterSegments()) {
      return;
    }
    // Segments that only wait for a checkpoint are the cheapest space there is.
    for (int s = 0; s < segs.count(); s++) {
      if (segs.state(s) == SegmentTable.USED && segs.live(s) == 0) {
        shard.checkpointer.request();
        break;
      }
    }
    int v = segs.allocatable() > 0 ? pickVictim() : -1;
    if (v < 0) {
      return;
    }
    victim = v;
    stalled = false;
    if (shard.queue.capacity() - shard.queue.inFlight() < 1) {
      victim = -1;
      return;
    }
    reading = true;
    segs.readStarted(segs.firstLocation(v));
    shard.queue.read(shard.file, shard.superblock.segmentOffset(v), buffer, this, v);
  }

  private int pickVictim() {
    SegmentTable segs = shard.segments;
    int perSegment = segs.blocksPerSegment();
    long now = shard.journal.lastAppliedSeq() + 1;
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int s = 0; s < segs.count(); s++) {
      int live = segs.live(s);
      // Relocating a nearly full segment costs as much space as it frees.
      if (segs.state(s) != SegmentTable.USED
          || live == 0
          || live > perSegment - Math.max(2, perSegment / 16)) {
        continue;
      }
      double u = (double) live / perSegment;
      double score =
          shard.config.cleanerPolicy() == CleanerPolicy.GREEDY
              ? -live
              : (1 - u) * (now - segs.maxSeq(s) + 1) / (1 + u);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  @Override
  public void completed(long tag, int result) {
    reading = false;
    SegmentTable segs = shard.segments;
    segs.readDone(segs.firstLocation(victim));
    if (result < shard.superblock.segmentBytes()) {
      LOG.log(System.Logger.Level.ERROR, "shard " + shard.shard + ": short cleaner read");
      victim = -1;
      return;
    }
    long segBytes = shard.superblock.segmentBytes();
    long pos = 0;
    while (pos + Blocks.SIZE <= segBytes && !stalled) {
      MemorySegment at = buffer.asSlice(pos);
      RecordHeader h = RecordHeader.peek(at, (int) (segBytes - pos));
      if (h == null || h.shard() != shard.shard || !h.verify(at, shard.crc)) {
        break;
      }
      recordLocation = segs.firstLocation(victim) + (int) (pos >>> Blocks.SHIFT) + h.metaBlocks();
      recordOffset = pos + (long) h.metaBlocks() * Blocks.SIZE;
      try {
        DeltaReader.read(at, RecordDescriptor.HEADER_LENGTH, h.metaLength(), h.deltaCount(), this);
      } catch (CorruptRecordException e) {
        break;
      }
      pos += h.length();
    }
    shard.journal.endOfPass();
    checkDone();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    reading = false;
    shard.segments.readDone(shard.segments.firstLocation(victim));
    LOG.log(
        System.Logger.Level.ERROR,
        "shard " + shard.shard + ": cleaner could not read segment " + victim + ": " + error);
    victim = -1;
  }

  private void relocateIfLive(long id, int block, int dataIndex, int crc) {
    ObjectEntry e = shard.index.byId(id);
    int location = recordLocation + dataIndex;
    if (e == null || e.block(block) != BlockEntry.pack(location, crc)) {
      return;
    }
    Batch batch = shard.journal.reserve(DeltaDescriptor.RELOCATE_LENGTH, 1, true);
    if (batch == null) {
      stalled = true;
      LOG.log(
          System.Logger.Level.WARNING,
          "shard " + shard.shard + ": cleaner has no segment to relocate into; store is full");
      return;
    }
    MemorySegment slice = batch.dataBlock(batch.addDataBlock());
    MemorySegment.copy(
        buffer, recordOffset + (long) dataIndex * Blocks.SIZE, slice, 0, Blocks.SIZE);
    shard.journal.deltas().relocate(id, block, location, crc);
    shard.journal.staged(batch);
    if (batch.relocations() == 0) {
      relocationsInFlight++;
    }
    batch.relocated();
    bytesWritten += Blocks.SIZE + DeltaDescriptor.RELOCATE_LENGTH;
  }

  /** Called for every applied batch. */
  void applied(Batch batch) {
    if (batch.relocations() > 0) {
      relocationsInFlight--;
      checkDone();
    }
  }

  private void checkDone() {
    if (victim < 0 || reading || relocationsInFlight > 0) {
      return;
    }
    int live = shard.segments.live(victim);
    if (live == 0) {
      segmentsCleaned++;
      shard.checkpointer.request();
    } else if (!stalled) {
      LOG.log(
          System.Logger.Level.WARNING,
          "shard "
              + shard.shard
              + ": segment "
              + victim
              + " still has "
              + live
              + " live blocks after cleaning; fsck the shard");
    }
    victim = -1;
    shard.retryParked();
  }

  @Override
  public void create(long id, long pool, String name) {}

  @Override
  public void write(
      long id,
      int firstBlock,
      int blocks,
      long endByte,
      MemorySegment crcs,
      long crcOffset,
      int dataIndex) {
    for (int i = 0; i < blocks && !stalled; i++) {
      relocateIfLive(id, firstBlock + i, dataIndex + i, crcs.get(Blocks.INT, crcOffset + 4L * i));
    }
  }

  @Override
  public void truncate(long id, long size) {}

  @Override
  public void remove(long id) {}

  @Override
  public void setXattr(long id, String name, byte[] value) {}

  @Override
  public void removeXattr(long id, String name) {}

  @Override
  public void relocate(long id, int block, int oldLocation, int crc, int dataIndex) {
    if (!stalled) {
      relocateIfLive(id, block, dataIndex, crc);
    }
  }
}
