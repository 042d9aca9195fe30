package io.tidestore.store.shard;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaWriter;
import java.lang.foreign.MemorySegment;

/**
 * Staging of writes: whole blocks are copied straight into the journal batch; a write that covers
 * part of a block merges it onto the block's current content, read from disk first when it is not
 * in memory (read-modify-write, during which later mutations of the object wait). Enforces the
 * shard's capacity before any segment space is taken. Owner thread only.
 */
final class DataWrites {
  private final ShardContext ctx;
  private final Journal journal;
  private final MutationGate gate;
  private final MergeBases bases;
  private final SpaceWaits space;

  /** {@link VictimPicker#capacityBlocks}: live blocks users may have. */
  private final long capacityBlocks;

  /** Blocks that staged, not yet applied writes newly map ({@link Batch#liveBlocksCharged}). */
  private long stagedLiveBlocks;

  private long userBytes;

  DataWrites(
      ShardContext ctx,
      Journal journal,
      MutationGate gate,
      MergeBases bases,
      SpaceWaits space,
      long capacityBlocks) {
    this.ctx = ctx;
    this.journal = journal;
    this.gate = gate;
    this.bases = bases;
    this.space = space;
    this.capacityBlocks = capacityBlocks;
  }

  long capacityBlocks() {
    return capacityBlocks;
  }

  /** Bytes passed to {@link #write}. */
  long userBytes() {
    return userBytes;
  }

  /** {@code batch} applied: what it newly maps now shows in the segments' live counts. */
  void applied(Batch batch) {
    stagedLiveBlocks -= batch.liveBlocksCharged();
  }

  void write(ObjectKey key, long offset, MemorySegment data, StoreCompletion<Void> done) {
    long len = data.byteSize();
    String bad = OpChecks.writeRange(offset, len);
    if (bad != null) {
      done.complete(null, MutationGate.invalid(bad));
      return;
    }
    if (len > journal.maxOpBytes()) {
      done.complete(
          null,
          MutationGate.invalid(
              "write of "
                  + len
                  + " bytes exceeds the largest single write of this shard, "
                  + journal.maxOpBytes()
                  + " bytes (one write is one atomic record and a record fits one "
                  + ctx.superblock.segmentBytes()
                  + "-byte segment); split it into several writes"));
      return;
    }
    // MutationGate.submit's steps, without a Mutation object per write.
    ObjectEntry e = gate.admit(key, true, done);
    if (e == null) {
      return;
    }
    StagedObject s = gate.stagingOf(e);
    if (MutationGate.mustQueue(s)) {
      // It runs later: on a copy, as the caller may reuse its buffer once this returns.
      MemorySegment copy = MergeBases.heapCopy(data);
      gate.queue(e, s, (qe, qs) -> doWrite(qe, qs, offset, copy, done, true));
      return;
    }
    doWrite(e, s, offset, data, done, false);
    gate.settle(s);
  }

  private void doWrite(
      ObjectEntry e,
      StagedObject s,
      long offset,
      MemorySegment data,
      StoreCompletion<Void> done,
      boolean copied) {
    if (gate.refused(done)) {
      return;
    }
    long len = data.byteSize();
    if (len == 0) {
      if (s.exists) {
        done.complete(null, null);
      } else {
        space.stageOrPark(e, s, () -> stageCreateOnly(e, s, done), done);
      }
      return;
    }
    long end = offset + len;
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((end - 1) >>> Blocks.SHIFT);
    boolean headPartial = (offset & (Blocks.SIZE - 1)) != 0 || end < ((long) first + 1) << 12;
    boolean tailPartial = last != first && (end & (Blocks.SIZE - 1)) != 0;
    MemorySegment headBase = headPartial ? bases.inMemory(e, s, first) : null;
    MemorySegment tailBase = tailPartial ? bases.inMemory(e, s, last) : null;
    boolean headDisk = headPartial && headBase == null;
    boolean tailDisk = tailPartial && tailBase == null;
    if (!headDisk && !tailDisk) {
      if (!stageWrite(e, s, offset, data, headBase, tailBase, done)) {
        // Parked for space: keep copies, the caller's buffer and batch slices may change. Only
        // here: a staged write has its bytes in the batch already, so copying up front would cost
        // every write an extra copy and allocation for the rare park.
        MemorySegment own = copied ? data : MergeBases.heapCopy(data);
        MemorySegment h1 = bases.stable(headBase);
        MemorySegment t1 = bases.stable(tailBase);
        space.park(e, s, () -> stageWrite(e, s, offset, own, h1, t1, done), done);
      }
      return;
    }
    MemorySegment own = copied ? data : MergeBases.heapCopy(data);
    // An in-memory base may be a slice of a batch buffer that is recycled once its batch applies,
    // which can happen before the disk read returns: keep a copy.
    MemorySegment[] found = {bases.stable(headBase), bases.stable(tailBase)};
    readModifyWrite(e, s, offset, own, found, headDisk ? first : -1, tailDisk ? last : -1, done);
  }

  /**
   * Reads the partial end blocks {@code headBlock} and {@code tailBlock} (-1 when already in {@code
   * found}) from disk, then stages the write onto them; every later mutation of the object waits
   * until then, so per-object order is kept.
   */
  private void readModifyWrite(
      ObjectEntry e,
      StagedObject s,
      long offset,
      MemorySegment own,
      MemorySegment[] found,
      int headBlock,
      int tailBlock,
      StoreCompletion<Void> done) {
    gate.hold(s);
    int[] left = {(headBlock >= 0 ? 1 : 0) + (tailBlock >= 0 ? 1 : 0)};
    StoreException[] error = {null};
    Runnable finish =
        () -> {
          if (error[0] != null) {
            done.complete(null, error[0]);
            gate.forgetIfUnused(e, s);
          } else if (!stageWrite(e, s, offset, own, found[0], found[1], done)) {
            space.park(e, s, () -> stageWrite(e, s, offset, own, found[0], found[1], done), done);
            return;
          }
          gate.resume(s);
        };
    for (int end = 0; end < 2; end++) {
      int block = end == 0 ? headBlock : tailBlock;
      if (block < 0) {
        continue;
      }
      int slot = end;
      bases.read(
          e,
          block,
          (base, failure) -> {
            found[slot] = base;
            error[0] = error[0] != null ? error[0] : failure;
            if (--left[0] == 0) {
              finish.run();
            }
          });
    }
    ctx.submitQuietly();
  }

  private boolean stageCreateOnly(ObjectEntry e, StagedObject s, StoreCompletion<Void> done) {
    byte[] name = e.key.nameBytes();
    Batch batch = journal.reserve(DeltaWriter.createLength(name.length), 0, false);
    if (batch == null) {
      return space.refused(e, s, done);
    }
    gate.createIfMissing(e, s);
    gate.staged(s, batch, done);
    return true;
  }

  /**
   * Stages the write into the open batch; false when it must wait for space (the caller parks it).
   */
  private boolean stageWrite(
      ObjectEntry e,
      StagedObject s,
      long offset,
      MemorySegment data,
      MemorySegment headBase,
      MemorySegment tailBase,
      StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return true;
    }
    long len = data.byteSize();
    int first = (int) (offset >>> Blocks.SHIFT);
    int n = (int) ((offset + len - 1) >>> Blocks.SHIFT) - first + 1;
    int meta =
        (s.exists ? 0 : DeltaWriter.createLength(e.key.nameBytes().length))
            + DeltaWriter.writeLength(n);
    // The capacity is a hard limit, checked before any segment space: past it waiting for the
    // cleaner cannot help, and the cleaner keeps its slack only if users cannot fill it.
    int added = newLiveBlocks(e, s, first, n);
    if (!admits(added)) {
      done.complete(null, overCapacity(added));
      gate.forgetIfUnused(e, s);
      return true;
    }
    Batch batch = journal.reserve(meta, n, false);
    if (batch == null) {
      return space.refused(e, s, done);
    }
    writeInto(batch, e, s, offset, data, headBase, tailBase, added);
    gate.staged(s, batch, done);
    return true;
  }

  /** Whether {@code added} more live blocks fit the shard's capacity, counting staged writes. */
  boolean admits(int added) {
    return added <= 0 || ctx.segments.totalLive() + stagedLiveBlocks + added <= capacityBlocks;
  }

  /**
   * Stages a write into {@code batch}, whose room for it (a create delta if the object is missing,
   * the write delta and its blocks) was reserved and whose capacity was checked; {@code headBase}
   * and {@code tailBase} are the current content of partial end blocks (null: zeros or unused);
   * {@code added} is its {@link #newLiveBlocks}, computed before staging.
   */
  void writeInto(
      Batch batch,
      ObjectEntry e,
      StagedObject s,
      long offset,
      MemorySegment data,
      MemorySegment headBase,
      MemorySegment tailBase,
      int added) {
    long len = data.byteSize();
    long end = offset + len;
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((end - 1) >>> Blocks.SHIFT);
    int n = last - first + 1;
    batch.chargeLiveBlocks(added);
    stagedLiveBlocks += added;
    gate.createIfMissing(e, s);
    DeltaWriter d = journal.deltas();
    d.write(e.id, first, n, end);
    MemorySegment zeros = bases.zeros();
    for (int i = 0; i < n; i++) {
      int b = first + i;
      int index = batch.addDataBlock();
      MemorySegment slice = batch.dataBlock(index);
      long start = (long) b << Blocks.SHIFT;
      long from = Math.max(offset, start);
      long to = Math.min(end, start + Blocks.SIZE);
      if (to - from < Blocks.SIZE) {
        MemorySegment base = b == first && headBase != null ? headBase : tailBase;
        MemorySegment.copy(base == null ? zeros : base, 0, slice, 0, Blocks.SIZE);
      }
      MemorySegment.copy(data, from - offset, slice, from - start, to - from);
      d.crc(batch.dataBlockCrc(ctx.crc, index));
      s.putPending(b, slice);
      batch.pending(e.id, b, slice);
    }
    s.size = Math.max(s.size, end);
    userBytes += len;
  }

  /**
   * Blocks of {@code [first, first + n)} that will hold no data once every staged mutation of the
   * object has applied: what a write there adds to the live blocks. Overwrites (the common case)
   * find every block applied below the lowest staged cut and look nothing else up.
   */
  static int newLiveBlocks(ObjectEntry e, StagedObject s, int first, int n) {
    long cut = s.lowestCut();
    int added = 0;
    for (int b = first; b < first + n; b++) {
      boolean applied = !BlockEntry.isHole(e.block(b)) && ((long) b << Blocks.SHIFT) < cut;
      if (!applied && s.pendingBlock(b) == null) {
        added++;
      }
    }
    return added;
  }

  StoreException overCapacity(int blocks) {
    return new StoreException(
        Code.NO_SPACE,
        "shard "
            + ctx.shard
            + " has no space for "
            + blocks
            + " more blocks: "
            + (ctx.segments.totalLive() + stagedLiveBlocks)
            + " of its capacity of "
            + capacityBlocks
            + " 4 KiB blocks are in use; remove or truncate objects to free space");
  }
}
