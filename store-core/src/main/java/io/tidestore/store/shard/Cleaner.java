package io.tidestore.store.shard;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DataBlockVisitor;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaReader;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.segment.SegmentTable;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/**
 * Reclaims segments by relocating their live blocks to the journal head, as a pipeline so that user
 * writes rarely wait for space.
 *
 * <h2>When</h2>
 *
 * Background cleaning starts when free segments drop to {@code cleanerHighWaterSegments()}: one
 * victim at a time and only segments at least a quarter dead, so cleaning ahead of need is cheap.
 * At {@code cleanerLowWaterSegments} it turns urgent: up to {@link #URGENT_VICTIMS} victims have
 * relocations in flight at once. A new victim starts only if its live blocks fit in the space the
 * cleaner may write (allocatable segments, the cleaner's reserve included, plus the room left in
 * the open segment) next to the relocations already in flight, so it never stalls half-way; with
 * the reserve intact one victim always fits, which is what guarantees progress on a full store.
 *
 * <h2>How</h2>
 *
 * A victim ({@link VictimPicker}) is read whole with one I/O into the cleaner's buffer; its records
 * are walked and every block the index still points at is re-logged as a RELOCATE delta (which
 * applies only if the block was not rewritten meanwhile). Relocations join the ordered journal and
 * group-commit like user writes, in records of up to {@code maxBatchBytes}. The buffer is free as
 * soon as the relocations are staged, so the next victim's read overlaps the previous one's
 * relocation writes.
 *
 * <h2>Reuse</h2>
 *
 * Once a victim's last relocation record has applied it holds no live block, but its records may
 * still be on replay's path: it becomes allocatable when a durable checkpoint lies past them (see
 * {@link SegmentTable#reclaim}). The cleaner asks for a checkpoint when a victim finishes; the
 * checkpointer runs one at a time and coalesces requests, so one checkpoint releases every victim
 * finished while the previous one was being written. Owner thread only.
 */
final class Cleaner implements IoCompletion {
  private static final System.Logger LOG = System.getLogger(Cleaner.class.getName());

  /**
   * Victims with relocations in flight at once when space is low. Each victim's live blocks exist
   * twice until its relocations apply and a checkpoint frees it, so every victim in flight is space
   * the others are cleaned against: 2 keep the next read overlapping the previous relocations at
   * lower write amplification than 4 (WA 6.6 vs 6.9-7.4 at 90% of capacity, no longer wait for
   * space).
   */
  static final int URGENT_VICTIMS = 2;

  private final ShardContext ctx;
  private final Journal journal;
  private final Checkpointer checkpointer;

  /** Whether some user mutation waits for space (cleaning is urgent then). */
  private final BooleanSupplier writesWaiting;

  private final VictimPicker picker;

  /** Relocates the blocks of the victim's records that are still live. */
  private final DataBlockVisitor liveBlocks =
      new DataBlockVisitor() {
        @Override
        protected void block(long id, int block, int dataIndex, int crc) {
          relocateIfLive(id, block, dataIndex, crc);
        }

        @Override
        protected boolean wantsMore() {
          return !stalled;
        }
      };

  /** One segment, allocated with the shard's buffers at mount (charged to the memory budget). */
  private final MemorySegment buffer;

  /** The segment being read, or -1. */
  private int reading = -1;

  /** Victims whose relocations are staged and not yet applied, oldest first. */
  private final int[] relocating = new int[URGENT_VICTIMS + 1];

  private int relocatingCount;

  private long bytesWritten;
  private long segmentsCleaned;
  private int recordLocation;
  private long recordOffset;
  private int victimBlocks;
  private Batch lastBatch;
  private boolean stalled;

  Cleaner(
      ShardContext ctx,
      Journal journal,
      Checkpointer checkpointer,
      MemorySegment buffer,
      BooleanSupplier writesWaiting) {
    this.ctx = ctx;
    this.journal = journal;
    this.checkpointer = checkpointer;
    this.buffer = buffer;
    this.writesWaiting = writesWaiting;
    this.picker = new VictimPicker(ctx.segments, ctx.config);
  }

  boolean busy() {
    return reading >= 0 || relocatingCount > 0;
  }

  /** Victim being read and victims relocating, for the space-wait trace. */
  String state() {
    return "reading=" + reading + " relocating=" + relocatingCount + " cleaned=" + segmentsCleaned;
  }

  /** {@link VictimPicker#capacityBlocks} with the shard's reserve. */
  long capacityBlocks() {
    return picker.capacityBlocks(ctx.config.reserveSegments(), ctx.config.overprovisionPercent());
  }

  long bytesWritten() {
    return bytesWritten;
  }

  long segmentsCleaned() {
    return segmentsCleaned;
  }

  /**
   * Whether waiting can get a mutation that needs {@code segments} new segments its space: the free
   * segments plus what checkpoints and compaction can still release cover it and the reserve. False
   * means the store is truly full for it: fail it now rather than park it.
   */
  boolean canMakeSpace(int segments) {
    if (ctx.health.readOnly() || journal.failure() != null) {
      return false;
    }
    long reachable = picker.reachableFreeSegments(journal.headRoomBlocks());
    return reachable >= segments + ctx.config.reserveSegments();
  }

  /** Starts cleaning another victim if space runs low and the pipeline has room. */
  void maybeStart() {
    SegmentTable segs = ctx.segments;
    int free = segs.freeCount();
    if (ctx.health.readOnly()
        || journal.failure() != null
        || free > ctx.config.cleanerHighWaterSegments()) {
      return;
    }
    // Segments that only wait for a checkpoint are the cheapest space there is.
    if (!checkpointer.busy() && hasUncoveredDeadSegment()) {
      checkpointer.request();
    }
    // A parked write makes cleaning urgent whatever the free count says.
    boolean urgent = free <= ctx.config.cleanerLowWaterSegments() || writesWaiting.getAsBoolean();
    if (reading >= 0 || relocatingCount >= (urgent ? URGENT_VICTIMS : 1)) {
      return;
    }
    long now = journal.lastAppliedSeq() + 1;
    int v =
        picker.pick(
            now,
            urgent ? picker.urgentMinNet() : picker.backgroundMinNet(),
            relocating,
            relocatingCount);
    if (v < 0
        && urgent
        && !picker.candidateSettling(now, picker.urgentMinNet(), relocating, relocatingCount)) {
      // Nothing worth its cost: take any segment that nets space at all, or writes would fail.
      v = picker.pick(now, VictimPicker.MIN_NET, relocating, relocatingCount);
    }
    if (v < 0 || !fits(segs.live(v)) || ctx.freeSlots() < 1) {
      return;
    }
    reading = v;
    segs.readStarted(segs.firstLocation(v));
    ctx.queue.read(ctx.file, ctx.superblock.segmentOffset(v), buffer, this, v);
  }

  private boolean hasUncoveredDeadSegment() {
    SegmentTable segs = ctx.segments;
    for (int s = 0; s < segs.count(); s++) {
      if (segs.state(s) == SegmentTable.USED && segs.live(s) == 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether relocating {@code live} blocks fits where the cleaner may write: the allocatable
   * segments (its reserve included) and the room left in the open segment, less the open batch.
   * Earlier victims' relocations are already staged, so they are accounted for. The metadata blocks
   * of the relocation records and up to two blocks per segment crossed (sealing at a segment's end)
   * are charged. A victim always nets at least {@link VictimPicker#MIN_NET} blocks, so it fits in
   * one free segment: with one allocatable segment left the cleaner still makes progress.
   */
  private boolean fits(int live) {
    int perSegment = ctx.segments.blocksPerSegment();
    long need = live + picker.relocationMetaBlocks(live) + 2L * (live / perSegment + 1);
    return need <= journal.placeableBlocks();
  }

  @Override
  public void completed(long tag, int result) {
    int victim = reading;
    reading = -1;
    SegmentTable segs = ctx.segments;
    segs.readDone(segs.firstLocation(victim));
    if (result < ctx.superblock.segmentBytes()) {
      LOG.log(System.Logger.Level.ERROR, "shard " + ctx.shard + ": short cleaner read");
      return;
    }
    victimBlocks = 0;
    lastBatch = null;
    stalled = false;
    // Space may have gone to user writes since the read started. A victim must be relocated whole
    // or not at all: half a victim frees nothing and leaks the space its copies took.
    if (!fits(segs.live(victim))) {
      maybeStart();
      return;
    }
    long segBytes = ctx.superblock.segmentBytes();
    long pos = 0;
    while (pos + Blocks.SIZE <= segBytes && !stalled) {
      MemorySegment at = buffer.asSlice(pos);
      RecordHeader h = RecordHeader.peek(at, (int) (segBytes - pos));
      if (h == null || !h.belongsTo(ctx.superblock) || !h.verify(at, ctx.crc)) {
        break;
      }
      recordLocation = segs.firstLocation(victim) + (int) (pos >>> Blocks.SHIFT) + h.metaBlocks();
      recordOffset = pos + (long) h.metaBlocks() * Blocks.SIZE;
      try {
        DeltaReader.read(
            at, RecordDescriptor.HEADER_LENGTH, h.metaLength(), h.deltaCount(), liveBlocks);
      } catch (CorruptRecordException e) {
        break;
      }
      pos += h.length();
    }
    if (lastBatch == null) {
      // Nothing was live any more: the victim only waits for a checkpoint.
      victimDone(victim, 0, null);
    } else {
      relocating[relocatingCount++] = victim;
      int blocks = victimBlocks;
      lastBatch.onApplied((StoreCompletion<Void>) (v, e) -> relocated(victim, blocks, e));
    }
    journal.endOfPass();
    maybeStart();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    int victim = reading;
    reading = -1;
    ctx.segments.readDone(ctx.segments.firstLocation(victim));
    LOG.log(
        System.Logger.Level.ERROR,
        "shard " + ctx.shard + ": cleaner could not read segment " + victim + ": " + error);
  }

  private void relocated(int victim, int blocks, StoreException failure) {
    for (int i = 0; i < relocatingCount; i++) {
      if (relocating[i] == victim) {
        System.arraycopy(relocating, i + 1, relocating, i, relocatingCount - i - 1);
        relocatingCount--;
        break;
      }
    }
    victimDone(victim, blocks, failure);
  }

  private void victimDone(int victim, int blocks, StoreException failure) {
    if (failure != null) {
      return; // the journal failed and the shard is read-only
    }
    int live = ctx.segments.live(victim);
    if (live == 0) {
      segmentsCleaned++;
      checkpointer.request();
    } else if (!stalled) {
      LOG.log(
          System.Logger.Level.WARNING,
          "shard "
              + ctx.shard
              + ": segment "
              + victim
              + " still has "
              + live
              + " live blocks after relocating "
              + blocks
              + "; fsck the shard");
    }
    maybeStart();
  }

  private void relocateIfLive(long id, int block, int dataIndex, int crc) {
    ObjectEntry e = ctx.index.byId(id);
    int location = recordLocation + dataIndex;
    if (e == null || e.block(block) != BlockEntry.pack(location, crc)) {
      return;
    }
    Batch batch = journal.reserveRelocation(DeltaDescriptor.RELOCATE_LENGTH, 1);
    if (batch == null) {
      stalled = true;
      LOG.log(
          System.Logger.Level.WARNING,
          "shard " + ctx.shard + ": cleaner has no segment to relocate into; store is full");
      return;
    }
    MemorySegment slice = batch.dataBlock(batch.addDataBlock());
    MemorySegment.copy(
        buffer, recordOffset + (long) dataIndex * Blocks.SIZE, slice, 0, Blocks.SIZE);
    journal.deltas().relocate(id, block, location, crc);
    journal.staged(batch);
    lastBatch = batch;
    victimBlocks++;
    bytesWritten += Blocks.SIZE + DeltaDescriptor.RELOCATE_LENGTH;
  }
}
