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
    if (size < 0 || size > ShardStore.MAX_OBJECT_BYTES) {
      done.complete(
          null,
          MutationGate.invalid(
              "size " + size + " outside [0, " + ShardStore.MAX_OBJECT_BYTES + "]"));
      return;
    }
    gate.submit(key, true, done, (e, s) -> doTruncate(e, s, size, done));
  }

  private void doTruncate(ObjectEntry e, StagedObject s, long size, StoreCompletion<Void> done) {
    boolean partial = s.exists && size < s.size && (size & (Blocks.SIZE - 1)) != 0;
    if (!partial) {
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
    boolean create = !s.exists;
    byte[] name = create ? e.key.nameBytes() : null;
    int meta =
        (create ? DeltaWriter.createLength(name.length) : 0)
            + (partialBase != null ? DeltaWriter.writeLength(1) : 0)
            + DeltaDescriptor.TRUNCATE_LENGTH;
    // Shrinking frees space, so it may use the cleaner's reserve: a full store must be able to
    // truncate. Growing only writes metadata.
    Batch batch = reserveFreeing(meta, partialBase != null ? 1 : 0, done);
    if (batch == null) {
      gate.forgetIfUnused(e, s);
      return;
    }
    DeltaWriter d = journal.deltas();
    if (create) {
      d.create(e.id, e.key.pool(), name);
      s.exists = true;
    }
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
    gate.staged(s, batch, done);
  }

  // ---------------------------------------------------------------- punch

  void punch(ObjectKey key, long offset, long length, StoreCompletion<Void> done) {
    if (offset < 0
        || length < 0
        || (offset & (Blocks.SIZE - 1)) != 0
        || (length & (Blocks.SIZE - 1)) != 0
        || offset + length > ShardStore.MAX_OBJECT_BYTES) {
      done.complete(
          null,
          MutationGate.invalid(
              "punch of "
                  + length
                  + " bytes at "
                  + offset
                  + ": offset and length must be multiples of "
                  + Blocks.SIZE
                  + " within [0, "
                  + ShardStore.MAX_OBJECT_BYTES
                  + ")"));
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
    // Blocks at or past the staged size hold nothing to free.
    int count =
        (int)
            Math.max(0, Math.min(first + (length >>> Blocks.SHIFT), Blocks.count(s.size)) - first);
    if (count == 0) {
      done.complete(null, null);
      return;
    }
    Batch batch = reserveFreeing(DeltaDescriptor.PUNCH_LENGTH, 0, done);
    if (batch == null) {
      return;
    }
    journal.deltas().punch(e.id, first, count);
    // Until the punch applies, merges onto these blocks must see zeros, not the applied data.
    MemorySegment zeros = bases.zeros();
    for (int b = first; b < first + count; b++) {
      s.putPending(b, zeros);
      batch.pending(e.id, b, zeros);
    }
    gate.staged(s, batch, done);
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
    journal.deltas().remove(e.id);
    s.exists = false;
    s.size = 0;
    s.clearPending();
    s.cutStaged(0);
    gate.staged(s, batch, done);
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
    boolean create = !s.exists;
    byte[] objName = create ? e.key.nameBytes() : null;
    int meta =
        (create ? DeltaWriter.createLength(objName.length) : 0)
            + DeltaWriter.setXattrLength(
                name.getBytes(StandardCharsets.UTF_8).length, value.length);
    Batch batch = journal.reserve(meta, 0, false);
    if (batch == null) {
      return space.refused(e, s, done);
    }
    if (create) {
      journal.deltas().create(e.id, e.key.pool(), objName);
      s.exists = true;
    }
    journal.deltas().setXattr(e.id, name, value);
    gate.staged(s, batch, done);
    return true;
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
    journal.deltas().removeXattr(e.id, name);
    gate.staged(s, batch, done);
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

  private static StoreException checkXattrName(String name) {
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
