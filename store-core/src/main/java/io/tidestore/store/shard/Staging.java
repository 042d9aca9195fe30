package io.tidestore.store.shard;

import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.journal.Batch;

/**
 * The write path's view of objects with mutations in flight: a {@link StagedObject} per object that
 * has one staged, waiting or in a read-modify-write, kept beside the index rather than in its
 * entries (which hold only what applied records say). An object without one is staged exactly as it
 * is applied.
 *
 * <p>Lifetime: created on an object's first mutation; each operation staged into a journal batch
 * counts against it ({@link #staged}) until its batch applies ({@link #afterApply}); dropped once
 * nothing is unapplied or queued ({@link #settle}). An object whose last applied operation removed
 * it and that has nothing staged leaves the index then too. Owner thread only.
 */
final class Staging implements RecordApplier.StagingHooks {
  private final ObjectIndex index;
  private final LongObjectMap<StagedObject> objects = new LongObjectMap<>();

  Staging(ObjectIndex index) {
    this.index = index;
  }

  /** The staged state of {@code e}, created from its applied state on first use. */
  StagedObject of(ObjectEntry e) {
    StagedObject s = objects.get(e.id);
    if (s == null) {
      s = new StagedObject(e.id, e.exists, e.size);
      objects.put(e.id, s);
    }
    return s;
  }

  /** The staged state of object {@code id}, or null when it is the applied state. */
  StagedObject peek(long id) {
    return objects.get(id);
  }

  /** Smallest size a staged, unapplied truncate or remove cuts object {@code id} to. */
  long lowestCut(long id) {
    StagedObject s = objects.get(id);
    return s == null ? Long.MAX_VALUE : s.lowestCut();
  }

  /** Objects with staging state (for tests and idle checks). */
  int size() {
    return objects.size();
  }

  /** One operation on {@code s} was staged into {@code batch}. */
  void staged(StagedObject s, Batch batch) {
    s.unapplied++;
    batch.opOn(s.id);
  }

  /** Drops {@code s} if nothing of the write path refers to it any more. */
  void settle(StagedObject s) {
    if (s.settled() && objects.get(s.id) == s) {
      objects.remove(s.id);
    }
  }

  /**
   * Drops an index entry that a refused operation created and that nothing uses: it never applied
   * (does not exist) and has no staging state.
   */
  void forgetIfUnused(ObjectEntry e, StagedObject s) {
    settle(s);
    if (!e.exists && objects.get(e.id) == null && index.get(e.key) == e) {
      index.drop(e);
    }
  }

  /** Before {@code batch}'s deltas apply: its staged blocks stop being the newest copies. */
  void beforeApply(Batch batch) {
    for (Batch.PendingBlock p : batch.pendingBlocks()) {
      StagedObject s = objects.get(p.objectId());
      if (s != null && s.pending != null && p.slice().equals(s.pending.get(p.block()))) {
        s.pending.remove(p.block());
        if (s.pending.isEmpty()) {
          s.pending = null;
        }
      }
    }
  }

  @Override
  public void cutApplied(long id) {
    StagedObject s = objects.get(id);
    if (s != null) {
      s.cutApplied();
    }
  }

  /**
   * After {@code batch}'s deltas applied: its operations are no longer unapplied, and an object its
   * last operation removed leaves the index once nothing else is staged for it.
   */
  void afterApply(Batch batch) {
    for (int i = 0; i < batch.opObjectCount(); i++) {
      StagedObject s = objects.get(batch.opObject(i));
      if (s != null) {
        s.unapplied--;
        settle(s);
      }
    }
    for (int i = 0; i < batch.opObjectCount(); i++) {
      long id = batch.opObject(i);
      ObjectEntry e = index.byId(id);
      if (e != null && !e.exists && objects.get(id) == null) {
        index.drop(e);
      }
    }
  }
}
