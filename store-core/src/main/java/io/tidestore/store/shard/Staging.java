package io.tidestore.store.shard;

import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.journal.Batch;
import java.util.ArrayDeque;

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
  /** Settled staging states kept for reuse at most; more objects than this are rarely staged. */
  private static final int SPARE_LIMIT = 1024;

  private final ObjectIndex index;
  private final LongObjectMap<StagedObject> objects = new LongObjectMap<>();

  /**
   * Settled staging states, reused for the next objects, so staging a mutation allocates nothing in
   * the steady state.
   */
  private final ArrayDeque<StagedObject> spare = new ArrayDeque<>();

  Staging(ObjectIndex index) {
    this.index = index;
  }

  /** The staged state of {@code e}, created from its applied state on first use. */
  StagedObject of(ObjectEntry e) {
    StagedObject s = objects.get(e.id);
    if (s == null) {
      s = spare.poll();
      if (s == null) {
        s = new StagedObject(e.id, e.exists, e.size);
      } else {
        s.reuse(e.id, e.exists, e.size);
      }
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

  /**
   * Drops {@code s} if nothing of the write path refers to it any more, and keeps it for reuse. A
   * caller may still hold it on its stack after a nested call settled it; its id is 0 in the pool
   * (no object has id 0), or another object's once reused, which is in {@code objects} only while
   * unsettled (every path that stages or refuses a mutation settles it before it returns): either
   * way such a late {@code settle} finds nothing to drop.
   */
  void settle(StagedObject s) {
    if (s.settled() && objects.get(s.id) == s) {
      objects.remove(s.id);
      if (spare.size() < SPARE_LIMIT) {
        s.reuse(0, false, 0);
        spare.push(s);
      }
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
    for (int i = 0; i < batch.pendingCount(); i++) {
      StagedObject s = objects.get(batch.pendingObject(i));
      if (s != null) {
        s.pendingApplied(batch.pendingBlock(i), batch.pendingSlice(i));
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
