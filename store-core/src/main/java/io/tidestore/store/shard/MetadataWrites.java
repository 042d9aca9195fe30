package io.tidestore.store.shard;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaWriter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Staging of the mutations that change an object's shape rather than its data: truncate (which
 * rewrites the block it cuts through, a read-modify-write when that block is not in memory), remove
 * and extended attributes. Truncating and removing free space, so they may use the cleaner's
 * reserve: a full store can always shrink. Owner thread only.
 */
final class MetadataWrites {
  private final ShardContext ctx;
  private final Journal journal;
  private final MutationGate gate;
  private final MergeBases bases;
  private final SpaceWaits space;

  MetadataWrites(
      ShardContext ctx, Journal journal, MutationGate gate, MergeBases bases, SpaceWaits space) {
    this.ctx = ctx;
    this.journal = journal;
    this.gate = gate;
    this.bases = bases;
    this.space = space;
  }

  // ---------------------------------------------------------------- truncate

  void truncate(ObjectKey key, long size, StoreCompletion<Void> done) {
    String bad = OpChecks.truncateSize(size);
    if (bad != null) {
      done.complete(null, MutationGate.invalid(bad));
      return;
    }
    gate.submit(key, true, done, (e, s) -> doTruncate(e, s, size, done));
  }

  private void doTruncate(ObjectEntry e, StagedObject s, long size, StoreCompletion<Void> done) {
    if (!cutsInsideBlock(s, size)) {
      stageTruncate(e, s, size, null, done);
      return;
    }
    int b = (int) (size >>> Blocks.SHIFT);
    MemorySegment base = bases.inMemory(e, s, b);
    if (base != null) {
      stageTruncate(e, s, size, base, done);
      return;
    }
    gate.hold(s);
    bases.read(
        e,
        b,
        (block, failure) -> {
          if (failure != null) {
            done.complete(null, failure);
          } else {
            stageTruncate(e, s, size, block, done);
          }
          gate.resume(s);
        });
    ctx.submitQuietly();
  }

  private void stageTruncate(
      ObjectEntry e,
      StagedObject s,
      long size,
      MemorySegment partialBase,
      StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return;
    }
    int meta =
        (s.exists ? 0 : DeltaWriter.createLength(e.key.nameBytes().length))
            + (partialBase != null ? DeltaWriter.writeLength(1) : 0)
            + DeltaDescriptor.TRUNCATE_LENGTH;
    // Shrinking frees space, so it may use the cleaner's reserve: a full store must be able to
    // truncate. Growing only writes metadata.
    Batch batch = reserveFreeing(meta, partialBase != null ? 1 : 0, done);
    if (batch == null) {
      gate.forgetIfUnused(e, s);
      return;
    }
    truncateInto(batch, e, s, size, partialBase);
    gate.staged(s, batch, done);
  }

  /**
   * Stages a truncate into {@code batch}, whose room for it was reserved: a create delta if the
   * object is missing, the rewritten block it cuts through ({@code partialBase}, its current
   * content; null when the cut is not inside a block of data), and the truncate delta.
   */
  void truncateInto(
      Batch batch, ObjectEntry e, StagedObject s, long size, MemorySegment partialBase) {
    gate.createIfMissing(e, s);
    DeltaWriter d = journal.deltas();
    int keep = (int) Blocks.count(size);
    s.dropPendingFrom(keep);
    if (partialBase != null) {
      int b = (int) (size >>> Blocks.SHIFT);
      MemorySegment slice = batch.dataBlock(batch.addDataBlock());
      MemorySegment.copy(partialBase, 0, slice, 0, Blocks.SIZE);
      int cut = (int) (size & (Blocks.SIZE - 1));
      slice.asSlice(cut, Blocks.SIZE - cut).fill((byte) 0);
      d.write(e.id, b, 1, size);
      d.crc(Blocks.crc(ctx.crc, slice, 0, Blocks.SIZE));
      s.putPending(b, slice);
      batch.pending(e.id, b, slice);
    }
    d.truncate(e.id, size);
    s.size = size;
    s.cutStaged(size);
  }

  /** Whether truncating {@code s} to {@code size} rewrites the block the cut goes through. */
  static boolean cutsInsideBlock(StagedObject s, long size) {
    return s.exists && size < s.size && (size & (Blocks.SIZE - 1)) != 0;
  }

  // ---------------------------------------------------------------- punch

  void punch(ObjectKey key, long offset, long length, StoreCompletion<Void> done) {
    String bad = OpChecks.punchRange(offset, length);
    if (bad != null) {
      done.complete(null, MutationGate.invalid(bad));
      return;
    }
    gate.submit(key, false, done, (e, s) -> doPunch(e, s, offset, length, done));
  }

  private void doPunch(
      ObjectEntry e, StagedObject s, long offset, long length, StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return;
    }
    if (!s.exists) {
      done.complete(null, MutationGate.notFound(e.key));
      return;
    }
    int first = (int) (offset >>> Blocks.SHIFT);
    int count = punchCount(s, first, length >>> Blocks.SHIFT);
    if (count == 0) {
      done.complete(null, null);
      return;
    }
    Batch batch = reserveFreeing(DeltaDescriptor.PUNCH_LENGTH, 0, done);
    if (batch == null) {
      return;
    }
    punchInto(batch, e, s, first, count);
    gate.staged(s, batch, done);
  }

  /**
   * Blocks from {@code first} that a punch of {@code blocks} frees in {@code s}: those below its
   * staged size (past it there is nothing to free).
   */
  static int punchCount(StagedObject s, int first, long blocks) {
    return (int) Math.max(0, Math.min(first + blocks, Blocks.count(s.size)) - first);
  }

  /** Stages a punch of {@code count} blocks into {@code batch}, whose room for it was reserved. */
  void punchInto(Batch batch, ObjectEntry e, StagedObject s, int first, int count) {
    journal.deltas().punch(e.id, first, count);
    // Until the punch applies, merges onto these blocks must see zeros, not the applied data.
    MemorySegment zeros = bases.zeros();
    for (int b = first; b < first + count; b++) {
      s.putPending(b, zeros);
      batch.pending(e.id, b, zeros);
    }
  }

  // ---------------------------------------------------------------- remove

  void remove(ObjectKey key, StoreCompletion<Void> done) {
    gate.submit(key, false, done, (e, s) -> doRemove(e, s, done));
  }

  private void doRemove(ObjectEntry e, StagedObject s, StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return;
    }
    if (!s.exists) {
      done.complete(null, MutationGate.notFound(e.key));
      return;
    }
    Batch batch = reserveFreeing(DeltaDescriptor.REMOVE_LENGTH, 0, done);
    if (batch == null) {
      return;
    }
    removeInto(e, s);
    gate.staged(s, batch, done);
  }

  /** Stages the remove of an existing object into the open batch, whose room was reserved. */
  void removeInto(ObjectEntry e, StagedObject s) {
    journal.deltas().remove(e.id);
    s.exists = false;
    s.size = 0;
    s.clearPending();
    s.cutStaged(0);
  }

  // ---------------------------------------------------------------- xattrs

  void setXattr(ObjectKey key, String name, byte[] value, StoreCompletion<Void> done) {
    StoreException bad = checkXattrName(name);
    if (bad == null && value.length > ShardStore.MAX_XATTR_BYTES) {
      bad =
          MutationGate.invalid(
              "xattr value of " + value.length + " bytes exceeds " + ShardStore.MAX_XATTR_BYTES);
    }
    if (bad != null) {
      done.complete(null, bad);
      return;
    }
    byte[] copy = value.clone();
    gate.submit(
        key,
        true,
        done,
        (e, s) -> space.stageOrPark(e, s, () -> doSetXattr(e, s, name, copy, done), done));
  }

  private boolean doSetXattr(
      ObjectEntry e, StagedObject s, String name, byte[] value, StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return true;
    }
    StoreException tooMany = tooManyXattrs(e, s, e.xattr(name) == null ? 1 : 0);
    if (tooMany != null) {
      done.complete(null, tooMany);
      gate.forgetIfUnused(e, s);
      return true;
    }
    int meta =
        (s.exists ? 0 : DeltaWriter.createLength(e.key.nameBytes().length))
            + DeltaWriter.setXattrLength(
                name.getBytes(StandardCharsets.UTF_8).length, value.length);
    Batch batch = journal.reserve(meta, 0, false);
    if (batch == null) {
      return space.refused(e, s, done);
    }
    setXattrInto(e, s, name, value);
    gate.staged(s, batch, done);
    return true;
  }

  /**
   * Stages an attribute set into the open batch, whose room for it (and for a create delta if the
   * object is missing) was reserved.
   */
  void setXattrInto(ObjectEntry e, StagedObject s, String name, byte[] value) {
    gate.createIfMissing(e, s);
    journal.deltas().setXattr(e.id, name, value);
  }

  void removeXattr(ObjectKey key, String name, StoreCompletion<Void> done) {
    StoreException bad = checkXattrName(name);
    if (bad != null) {
      done.complete(null, bad);
      return;
    }
    gate.submit(key, false, done, (e, s) -> doRemoveXattr(e, s, name, done));
  }

  private void doRemoveXattr(
      ObjectEntry e, StagedObject s, String name, StoreCompletion<Void> done) {
    if (gate.refused(done)) {
      return;
    }
    if (!s.exists) {
      done.complete(null, MutationGate.notFound(e.key));
      return;
    }
    int meta = DeltaWriter.removeXattrLength(name.getBytes(StandardCharsets.UTF_8).length);
    Batch batch = reserveFreeing(meta, 0, done);
    if (batch == null) {
      return;
    }
    removeXattrInto(e, name);
    gate.staged(s, batch, done);
  }

  /** Stages an attribute removal into the open batch, whose room for it was reserved. */
  void removeXattrInto(ObjectEntry e, String name) {
    journal.deltas().removeXattr(e.id, name);
  }

  /**
   * Room in the open batch for an operation that frees space (or changes almost nothing): it may
   * use the cleaner's reserve, so a full store can still shrink and remove. Null, with {@code done}
   * failed (the journal's failure or NO_SPACE), when there is none.
   */
  private Batch reserveFreeing(int metaBytes, int dataBlocks, StoreCompletion<Void> done) {
    Batch batch = journal.reserve(metaBytes, dataBlocks, true);
    if (batch == null) {
      done.complete(null, journal.failure() != null ? journal.failure() : space.noSpace());
    }
    return batch;
  }

  /**
   * INVALID when {@code adding} more attributes could take {@code e} past {@link
   * ShardStore#MAX_XATTRS}: its applied ones plus, as the worst case, one per unapplied mutation.
   */
  static StoreException tooManyXattrs(ObjectEntry e, StagedObject s, int adding) {
    long most = (long) e.xattrs().size() + s.unapplied + adding;
    return adding > 0 && most > ShardStore.MAX_XATTRS
        ? MutationGate.invalid(
            e.key.name()
                + " has "
                + e.xattrs().size()
                + " attributes and "
                + s.unapplied
                + " unapplied mutations; an object holds at most "
                + ShardStore.MAX_XATTRS)
        : null;
  }

  static StoreException checkXattrName(String name) {
    if (name == null || name.isEmpty()) {
      return MutationGate.invalid("xattr name must not be empty");
    }
    int n = name.getBytes(StandardCharsets.UTF_8).length;
    return n > ShardStore.MAX_XATTR_NAME_BYTES
        ? MutationGate.invalid(
            "xattr name of " + n + " bytes exceeds " + ShardStore.MAX_XATTR_NAME_BYTES)
        : null;
  }
}
