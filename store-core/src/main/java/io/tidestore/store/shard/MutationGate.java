package io.tidestore.store.shard;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.Journal;
import java.util.ArrayDeque;

/**
 * What every mutation goes through before it is staged: the shard's refusal when it is read-only,
 * the index entry to stage into (refused when a new one would exceed the index's memory), and
 * per-object order: while one mutation of an object waits (for a read-modify-write read or for
 * space), later ones queue behind it and run in issue order when it is staged. Owner thread only.
 */
final class MutationGate {
  private final ShardContext ctx;
  private final Journal journal;
  private final Staging staging;

  MutationGate(ShardContext ctx, Journal journal, Staging staging) {
    this.ctx = ctx;
    this.journal = journal;
    this.staging = staging;
  }

  static StoreException invalid(String why) {
    return new StoreException(Code.INVALID, why);
  }

  static StoreException notFound(ObjectKey key) {
    return new StoreException(Code.NOT_FOUND, "no object " + key.pool() + "/" + key.name());
  }

  /** Fails {@code done} and returns true when the shard takes no mutation any more. */
  boolean refused(StoreCompletion<?> done) {
    StoreException refusal = ctx.health.refusal();
    if (refusal == null) {
      return false;
    }
    done.complete(null, refusal);
    return true;
  }

  /**
   * The entry to stage a mutation of {@code key} into, created if new; null (and {@code done}
   * failed with NO_MEMORY) when a new one would exceed the index's share of the memory limit.
   */
  private ObjectEntry entryForWrite(ObjectKey key, StoreCompletion<?> done) {
    ObjectEntry e = entryOrNull(key);
    if (e == null) {
      done.complete(null, indexFull(key));
    }
    return e;
  }

  StoreException indexFull(ObjectKey key) {
    return new StoreException(
        Code.NO_MEMORY,
        "shard "
            + ctx.shard
            + " cannot create "
            + key.pool()
            + "/"
            + key.name()
            + ": its index ("
            + ctx.index.footprintBytes()
            + " bytes) reached its share of --memory-limit; existing objects still read, write"
            + " and remove; raise --memory-limit or remove objects");
  }

  /** One mutation of an object, run when it is the object's turn. */
  interface Mutation {
    void run(ObjectEntry e, StagedObject s);

    /**
     * This mutation as it runs later, queued behind another: it must not refer to the caller's
     * buffers, which the caller may reuse once the call returns.
     */
    default Mutation forLater() {
      return this;
    }
  }

  /**
   * Runs {@code m} on the entry of {@code key} in per-object order: at once, or queued behind a
   * mutation of the object that waits. Fails {@code done} instead when the shard takes no mutation,
   * when the object does not exist and {@code create} is false (NOT_FOUND), or when a new entry
   * would exceed the index's memory (NO_MEMORY).
   */
  void submit(ObjectKey key, boolean create, StoreCompletion<?> done, Mutation m) {
    ObjectEntry e = admit(key, create, done);
    if (e == null) {
      return;
    }
    StagedObject s = staging.of(e);
    if (mustQueue(s)) {
      queue(e, s, m.forLater());
      return;
    }
    m.run(e, s);
    settle(s); // when it completed without staging anything
  }

  // The steps of submit, for a caller that runs its mutation directly rather than through a
  // Mutation object (a write: that object would be its one allocation per operation).

  /**
   * The entry a mutation of {@code key} goes to; null when {@code done} was failed instead (see
   * {@link #submit}).
   */
  ObjectEntry admit(ObjectKey key, boolean create, StoreCompletion<?> done) {
    if (refused(done)) {
      return null;
    }
    ObjectEntry e;
    if (create) {
      e = entryForWrite(key, done);
    } else {
      e = ctx.index.get(key);
      if (e == null) {
        done.complete(null, notFound(key));
      }
    }
    return e;
  }

  /** The staging state of an admitted entry. */
  StagedObject stagingOf(ObjectEntry e) {
    return staging.of(e);
  }

  /** Whether a mutation of {@code s} must queue behind one that waits ({@link #queue}). */
  static boolean mustQueue(StagedObject s) {
    return s.waiting != null;
  }

  /** Queues {@code later} (which refers to no caller buffer) behind the wait of {@code s}. */
  void queue(ObjectEntry e, StagedObject s, Mutation later) {
    s.waiting.add(() -> later.run(e, s));
  }

  /** After a mutation ran directly: drops {@code s} if it completed without staging anything. */
  void settle(StagedObject s) {
    staging.settle(s);
  }

  /** Makes later mutations of {@code s} queue until {@link #resume}. */
  void hold(StagedObject s) {
    if (s.waiting == null) {
      s.waiting = new ArrayDeque<>();
    }
  }

  /** Runs the mutations queued behind a finished wait, in order, until one waits again. */
  void resume(StagedObject s) {
    ArrayDeque<Runnable> queued = s.waiting;
    s.waiting = null;
    boolean outer = !s.resuming;
    s.resuming = true;
    try {
      while (queued != null && !queued.isEmpty()) {
        queued.poll().run();
        if (s.waiting != null) {
          s.waiting.addAll(queued);
          return;
        }
      }
    } finally {
      if (outer) {
        s.resuming = false;
        staging.settle(s);
      }
    }
  }

  /**
   * Counts one operation of {@code s}, just staged into {@code batch}, for the journal's batching
   * rules and the staging state; {@code done} is acknowledged when the batch applies.
   */
  void staged(StagedObject s, Batch batch, StoreCompletion<Void> done) {
    staging.staged(s, batch);
    journal.staged(batch);
    batch.onApplied(done);
  }

  /**
   * Stages the create delta of {@code e} into the open batch unless it exists once everything
   * staged applies; returns whether it did. The caller reserved room for it.
   */
  boolean createIfMissing(ObjectEntry e, StagedObject s) {
    if (s.exists) {
      return false;
    }
    journal.deltas().create(e.id, e.key.pool(), e.key.nameBytes());
    s.exists = true;
    return true;
  }

  /**
   * The entry to stage a mutation of {@code key} into, created if new; null when a new one would
   * exceed the index's memory ({@link #indexFull}). Does not check the shard's refusal.
   */
  ObjectEntry entryOrNull(ObjectKey key) {
    ObjectEntry e = ctx.index.get(key);
    return e == null && ctx.index.admitsNewObject() ? ctx.index.create(key) : e;
  }

  /** Counts one operation of a transaction, staged into {@code batch}, for the staging state. */
  void stagedInTransaction(StagedObject s, Batch batch) {
    staging.staged(s, batch);
  }

  /**
   * Counts a whole transaction, staged into {@code batch}, for the journal's batching rules (it is
   * one operation there); {@code done} is acknowledged when the batch applies.
   */
  void transactionStaged(Batch batch, StoreCompletion<Void> done) {
    journal.staged(batch);
    batch.onApplied(done);
  }

  /** After a refusal: drops what the refused mutation alone created. */
  void forgetIfUnused(ObjectEntry e, StagedObject s) {
    staging.forgetIfUnused(e, s);
  }
}
