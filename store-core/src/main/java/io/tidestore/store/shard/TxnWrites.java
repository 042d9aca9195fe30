package io.tidestore.store.shard;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaWriter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;

/**
 * Staging of {@link Transaction}s: every operation of one goes into the same journal batch, so they
 * share one record and commit together or not at all (a record is applied whole or, failing its
 * crc, not at all).
 *
 * <p>Nothing can be undone once staged, so everything that could fail is settled first: the
 * arguments ({@link OpChecks}), an index entry for every object, the room of the whole record in
 * one batch (reserved at once, sized for the worst case), the shard's capacity, and the current
 * content of every partial block a write or a cut merges into, read from disk beforehand. The
 * transaction holds its objects from issue to staging (their later mutations queue behind it, so
 * per-object order is kept). Then every operation is staged with the single-operation code ({@link
 * DataWrites}, {@link MetadataWrites}). Owner thread only.
 */
final class TxnWrites {
  private final ShardContext ctx;
  private final Journal journal;
  private final MutationGate gate;
  private final MergeBases bases;
  private final SpaceWaits space;
  private final DataWrites writes;
  private final MetadataWrites metadata;

  TxnWrites(
      ShardContext ctx,
      Journal journal,
      MutationGate gate,
      MergeBases bases,
      SpaceWaits space,
      DataWrites writes,
      MetadataWrites metadata) {
    this.ctx = ctx;
    this.journal = journal;
    this.gate = gate;
    this.bases = bases;
    this.space = space;
    this.writes = writes;
    this.metadata = metadata;
  }

  void submit(Transaction t, StoreCompletion<Void> done) {
    StoreException bad = OpChecks.check(t, journal.maxOpBytes());
    if (bad != null) {
      done.complete(null, bad);
    } else if (t.size() == 0) {
      done.complete(null, null);
    } else {
      new Attempt(t, done).start();
    }
  }

  /** One transaction on its way into a batch. */
  private final class Attempt {
    private final Transaction t;
    private final StoreCompletion<Void> done;

    /** Fails the transaction after letting go of its objects. */
    private final StoreCompletion<Void> failing;

    /** The distinct objects, in first-use order, and which of them each operation is on. */
    private final ObjectKey[] keys;

    private final int[] objectOf;
    private int objects;
    private ObjectEntry[] entries;
    private StagedObject[] staged;

    /** Worst-case room of the record: delta bytes and data blocks. */
    private int metaBytes;

    private int dataBlocks;

    /** Content of partial blocks, by object index << 32 | block, taken before staging. */
    private final HashMap<Long, MemorySegment> baseBlocks = new HashMap<>();

    private int readsLeft;
    private StoreException readFailure;

    /** Objects whose earlier mutations this transaction still waits behind. */
    private int busy;

    private boolean held;

    /**
     * What SpaceWaits holds and resumes while the transaction waits for space: a staging state of
     * no object (id 0), as the transaction holds and lets go of its objects itself.
     */
    private final StagedObject parkToken = new StagedObject(0, false, 0);

    Attempt(Transaction t, StoreCompletion<Void> done) {
      this.t = t;
      this.done = done;
      this.failing =
          (v, failure) -> {
            release();
            done.complete(null, failure);
          };
      this.keys = new ObjectKey[t.size()];
      this.objectOf = new int[t.size()];
      for (int i = 0; i < t.size(); i++) {
        objectOf[i] = indexOf(t.key(i));
      }
    }

    private int indexOf(ObjectKey key) {
      for (int o = 0; o < objects; o++) {
        if (keys[o].equals(key)) {
          return o;
        }
      }
      keys[objects] = key;
      return objects++;
    }

    /**
     * Admits every object and holds it: at once when it is free, else once the mutations queued
     * before this transaction ran (it queues behind them). Later mutations of any of its objects
     * queue behind the transaction, so per-object issue order holds across it; as every transaction
     * takes its place in every object's queue at issue, no two wait for each other.
     */
    void start() {
      if (gate.refused(done) || !admitAll()) {
        return;
      }
      for (int o = 0; o < objects; o++) {
        StagedObject s = staged[o];
        if (MutationGate.mustQueue(s)) {
          busy++;
          gate.queue(
              entries[o],
              s,
              (qe, qs) -> {
                gate.hold(qs);
                if (--busy == 0) {
                  proceed();
                }
              });
        } else {
          gate.hold(s);
        }
      }
      held = true;
      if (busy == 0) {
        proceed();
      }
    }

    /** With every object held: plans, reads the partial blocks' content, and stages. */
    private void proceed() {
      plan();
      if (!journal.fitsOneRecord(metaBytes, dataBlocks)) {
        failing.complete(
            null,
            MutationGate.invalid(
                "transaction of "
                    + t.size()
                    + " operations needs a record of "
                    + dataBlocks
                    + " data blocks and "
                    + metaBytes
                    + " delta bytes, more than one segment holds"));
        return;
      }
      if (readsLeft > 0) {
        ctx.submitQuietly();
      } else if (!stage()) {
        park();
      }
    }

    private boolean admitAll() {
      entries = new ObjectEntry[objects];
      staged = new StagedObject[objects];
      for (int o = 0; o < objects; o++) {
        ObjectEntry e = gate.entryOrNull(keys[o]);
        if (e == null) {
          objects = o; // forget only what was admitted
          release();
          done.complete(null, gate.indexFull(keys[o]));
          return false;
        }
        entries[o] = e;
        staged[o] = gate.stagingOf(e);
      }
      return true;
    }

    /**
     * Sizes the record for the worst case (a create delta wherever the object may be missing, a
     * rewritten block for every cut inside a block) and starts reading the partial blocks whose
     * content is not in memory.
     */
    private void plan() {
      metaBytes = 0;
      dataBlocks = 0;
      boolean[] exists = new boolean[objects];
      for (int o = 0; o < objects; o++) {
        exists[o] = staged[o].exists;
      }
      for (int i = 0; i < t.size(); i++) {
        int o = objectOf[i];
        int create = exists[o] ? 0 : DeltaWriter.createLength(keys[o].nameBytes().length);
        long offset = t.offset(i);
        switch (t.kind(i)) {
          case WRITE -> {
            metaBytes += create;
            exists[o] = true;
            long end = offset + t.length(i);
            if (end > offset) {
              int first = (int) (offset >>> Blocks.SHIFT);
              int last = (int) ((end - 1) >>> Blocks.SHIFT);
              metaBytes += DeltaWriter.writeLength(last - first + 1);
              dataBlocks += last - first + 1;
              if (headPartial(offset, end)) {
                needBase(o, first);
              }
              if (tailPartial(offset, end)) {
                needBase(o, last);
              }
            }
          }
          case TRUNCATE -> {
            metaBytes += create + DeltaDescriptor.TRUNCATE_LENGTH;
            exists[o] = true;
            if ((offset & (Blocks.SIZE - 1)) != 0) {
              metaBytes += DeltaWriter.writeLength(1);
              dataBlocks++;
              needBase(o, (int) (offset >>> Blocks.SHIFT));
            }
          }
          case PUNCH -> metaBytes += DeltaDescriptor.PUNCH_LENGTH;
          case REMOVE -> {
            metaBytes += DeltaDescriptor.REMOVE_LENGTH;
            exists[o] = false;
          }
          case TOUCH -> {
            metaBytes += create;
            exists[o] = true;
          }
          case SET_XATTR -> {
            metaBytes += create + DeltaWriter.setXattrLength(nameBytes(i), t.xattrValue(i).length);
            exists[o] = true;
          }
          case REMOVE_XATTR -> metaBytes += DeltaWriter.removeXattrLength(nameBytes(i));
        }
      }
    }

    private int nameBytes(int i) {
      return t.xattrName(i).getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Takes block {@code b} of object {@code o} as it is before the transaction: from memory (a
     * stable copy: a staged slice is recycled once its batch applies) or by a read from disk.
     */
    private void needBase(int o, int b) {
      long key = (long) o << 32 | b;
      if (baseBlocks.containsKey(key)) {
        return;
      }
      MemorySegment known = bases.inMemory(entries[o], staged[o], b);
      baseBlocks.put(key, bases.stable(known));
      if (known != null) {
        return;
      }
      readsLeft++;
      bases.read(
          entries[o],
          b,
          (block, failure) -> {
            baseBlocks.put(key, block);
            readFailure = readFailure != null ? readFailure : failure;
            if (--readsLeft == 0) {
              basesRead();
            }
          });
    }

    private void basesRead() {
      if (readFailure != null) {
        failing.complete(null, readFailure);
      } else if (!stage()) {
        park();
      }
    }

    private void park() {
      space.park(entries[0], parkToken, this::stage, failing);
    }

    /** Stages every operation into one batch; false when it must wait for space. */
    private boolean stage() {
      if (gate.refused(failing)) {
        return true;
      }
      int added = 0;
      for (int i = 0; i < t.size(); i++) {
        if (t.kind(i) == Transaction.Kind.WRITE && t.length(i) > 0) {
          int o = objectOf[i];
          int first = (int) (t.offset(i) >>> Blocks.SHIFT);
          int last = (int) ((t.offset(i) + t.length(i) - 1) >>> Blocks.SHIFT);
          added += DataWrites.newLiveBlocks(entries[o], staged[o], first, last - first + 1);
        }
      }
      if (!writes.admits(added)) {
        failing.complete(null, writes.overCapacity(added));
        return true;
      }
      for (int o = 0; o < objects; o++) {
        StoreException tooMany = MetadataWrites.tooManyXattrs(entries[o], staged[o], newXattrs(o));
        if (tooMany != null) {
          failing.complete(null, tooMany);
          return true;
        }
      }
      Batch batch = journal.reserve(metaBytes, dataBlocks, false);
      if (batch == null) {
        return space.refused(entries[0], parkToken, failing);
      }
      for (int i = 0; i < t.size(); i++) {
        stageOp(batch, i);
      }
      gate.transactionStaged(batch, done);
      release();
      return true;
    }

    /** Attribute sets of object {@code o} by names it does not have applied: the most it adds. */
    private int newXattrs(int o) {
      int n = 0;
      for (int i = 0; i < t.size(); i++) {
        if (objectOf[i] == o
            && t.kind(i) == Transaction.Kind.SET_XATTR
            && entries[o].xattr(t.xattrName(i)) == null) {
          n++;
        }
      }
      return n;
    }

    private void stageOp(Batch batch, int i) {
      int o = objectOf[i];
      ObjectEntry e = entries[o];
      StagedObject s = staged[o];
      long offset = t.offset(i);
      boolean did = true;
      switch (t.kind(i)) {
        case WRITE -> {
          long end = offset + t.length(i);
          if (end == offset) {
            did = gate.createIfMissing(e, s);
          } else {
            int first = (int) (offset >>> Blocks.SHIFT);
            int last = (int) ((end - 1) >>> Blocks.SHIFT);
            MemorySegment head = headPartial(offset, end) ? base(o, first) : null;
            MemorySegment tail = tailPartial(offset, end) ? base(o, last) : null;
            int added = DataWrites.newLiveBlocks(e, s, first, last - first + 1);
            writes.writeInto(batch, e, s, offset, t.data(i), head, tail, added);
          }
        }
        case TRUNCATE -> {
          MemorySegment cut =
              MetadataWrites.cutsInsideBlock(s, offset)
                  ? base(o, (int) (offset >>> Blocks.SHIFT))
                  : null;
          metadata.truncateInto(batch, e, s, offset, cut);
        }
        case PUNCH -> {
          int first = (int) (offset >>> Blocks.SHIFT);
          int count = s.exists ? MetadataWrites.punchCount(s, first, t.length(i) >>> 12) : 0;
          did = count > 0;
          if (did) {
            metadata.punchInto(batch, e, s, first, count);
          }
        }
        case REMOVE -> {
          did = s.exists;
          if (did) {
            metadata.removeInto(e, s);
          }
        }
        case TOUCH -> did = gate.createIfMissing(e, s);
        case SET_XATTR -> metadata.setXattrInto(e, s, t.xattrName(i), t.xattrValue(i));
        case REMOVE_XATTR -> {
          did = s.exists;
          if (did) {
            metadata.removeXattrInto(e, t.xattrName(i));
          }
        }
      }
      if (did) {
        gate.stagedInTransaction(s, batch);
      }
    }

    /** The content block {@code b} of object {@code o} merges onto, as staging stands now. */
    private MemorySegment base(int o, int b) {
      MemorySegment now = bases.inMemory(entries[o], staged[o], b);
      if (now != null) {
        return now;
      }
      MemorySegment before = baseBlocks.get((long) o << 32 | b);
      if (before == null) {
        throw new IllegalStateException("transaction merges onto block " + b + " it did not read");
      }
      return before;
    }

    /**
     * Lets go of the objects: runs what queued behind them and forgets the index entries this
     * transaction created for nothing.
     */
    private void release() {
      for (int o = 0; o < objects; o++) {
        if (held) {
          gate.resume(staged[o]);
        }
        gate.forgetIfUnused(entries[o], staged[o]);
      }
      held = false;
    }
  }

  static boolean headPartial(long offset, long end) {
    int first = (int) (offset >>> Blocks.SHIFT);
    return (offset & (Blocks.SIZE - 1)) != 0 || end < ((long) first + 1) << Blocks.SHIFT;
  }

  static boolean tailPartial(long offset, long end) {
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((end - 1) >>> Blocks.SHIFT);
    return last != first && (end & (Blocks.SIZE - 1)) != 0;
  }
}
