package io.tidestore.store.shard;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.Journal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * User mutations that found no space and wait for the cleaner or a checkpoint to free some: parked
 * in order, retried whenever space may have been freed, failed with NO_SPACE when waiting cannot
 * help or takes longer than {@link #LIMIT_NANOS}. Later mutations of a parked object queue behind
 * it. Owner thread only.
 */
final class SpaceWaits {
  private static final System.Logger LOG = System.getLogger(SpaceWaits.class.getName());

  /** How long a mutation may wait for space before it fails with NO_SPACE. */
  private static final long LIMIT_NANOS = 10_000_000_000L;

  /**
   * Logs every wait for space longer than this many milliseconds with the shard's state when the
   * write parked and when it resumed ({@code -Dtidestore.traceSpaceWaitsMs=N}; 0, the default, is
   * off).
   */
  private static final long TRACE_NANOS =
      Long.getLong("tidestore.traceSpaceWaitsMs", 0L) * 1_000_000L;

  /** A user mutation waiting for space. */
  private record Parked(
      ObjectEntry entry,
      StagedObject staged,
      BooleanSupplier attempt,
      StoreCompletion<Void> done,
      long since,
      String state) {}

  private final ShardContext ctx;
  private final Journal journal;
  private final Cleaner cleaner;
  private final Checkpointer checkpointer;
  private final MutationGate gate;
  private final ArrayDeque<Parked> parked = new ArrayDeque<>();
  private long maxNanos;
  private long waits;
  private long totalNanos;

  SpaceWaits(
      ShardContext ctx,
      Journal journal,
      Cleaner cleaner,
      Checkpointer checkpointer,
      MutationGate gate) {
    this.ctx = ctx;
    this.journal = journal;
    this.cleaner = cleaner;
    this.checkpointer = checkpointer;
    this.gate = gate;
  }

  /** Whether some user mutation waits for space. */
  boolean any() {
    return !parked.isEmpty();
  }

  /** The NO_SPACE (or NO_MEMORY, when the memory limit refused a batch buffer) of a refusal. */
  StoreException noSpace() {
    StoreException memory = journal.takeMemoryRefusal();
    if (memory != null) {
      return memory;
    }
    return new StoreException(
        Code.NO_SPACE,
        "shard "
            + ctx.shard
            + " has no space: "
            + ctx.segments.freeCount()
            + " of "
            + ctx.segments.count()
            + " segments free ("
            + ctx.config.reserveSegments()
            + " reserved for the cleaner), "
            + ctx.segments.totalLive()
            + " of "
            + (long) ctx.segments.count() * ctx.segments.blocksPerSegment()
            + " blocks live; remove or truncate objects to free space");
  }

  /**
   * A stage attempt found no space. Returns false (the caller parks the operation) when the cleaner
   * or a checkpoint can still free some; otherwise fails it with NO_SPACE and returns true.
   */
  boolean refused(ObjectEntry e, StagedObject s, StoreCompletion<Void> done) {
    if (journal.failure() != null) {
      done.complete(null, journal.failure());
      gate.forgetIfUnused(e, s);
      return true;
    }
    if (!cleaner.canMakeSpace(journal.segmentsWanted())) {
      done.complete(null, noSpace());
      gate.forgetIfUnused(e, s);
      return true;
    }
    return false;
  }

  /** Runs {@code attempt}; if it must wait for space, parks it. */
  void stageOrPark(
      ObjectEntry e, StagedObject s, BooleanSupplier attempt, StoreCompletion<Void> done) {
    if (!attempt.getAsBoolean()) {
      park(e, s, attempt, done);
    }
  }

  /** Parks an attempt; later mutations of the object queue behind it. */
  void park(ObjectEntry e, StagedObject s, BooleanSupplier attempt, StoreCompletion<Void> done) {
    gate.hold(s);
    parked.add(new Parked(e, s, attempt, done, System.nanoTime(), TRACE_NANOS > 0 ? state() : ""));
    cleaner.maybeStart();
  }

  /** Retries parked mutations; called whenever space may have been freed. */
  void retry() {
    if (parked.isEmpty()) {
      return;
    }
    List<Parked> all = new ArrayList<>(parked);
    parked.clear();
    long now = System.nanoTime();
    for (Parked p : all) {
      if (p.attempt().getAsBoolean()) {
        note(now - p.since());
        if (TRACE_NANOS > 0 && now - p.since() >= TRACE_NANOS) {
          LOG.log(
              System.Logger.Level.INFO,
              "SPACEWAIT shard "
                  + ctx.shard
                  + " waited "
                  + (now - p.since()) / 1_000_000
                  + " ms; parked at ["
                  + p.state()
                  + "] resumed at ["
                  + state()
                  + "]");
        }
        gate.resume(p.staged());
      } else if (!cleaner.canMakeSpace(journal.segmentsWanted()) || now - p.since() > LIMIT_NANOS) {
        note(now - p.since());
        p.done().complete(null, noSpace());
        gate.resume(p.staged());
        gate.forgetIfUnused(p.entry(), p.staged());
      } else {
        parked.add(p);
      }
    }
  }

  /** Free segments, victims in flight and checkpoint state, for the space-wait trace. */
  private String state() {
    return "free="
        + ctx.segments.freeCount()
        + " placeable="
        + journal.placeableBlocks()
        + " "
        + cleaner.state()
        + " checkpoint="
        + (checkpointer.busy() ? "busy" : "idle")
        + " parked="
        + parked.size();
  }

  private void note(long nanos) {
    maxNanos = Math.max(maxNanos, nanos);
    waits++;
    totalNanos += nanos;
  }

  long maxNanos() {
    return maxNanos;
  }

  long waits() {
    return waits;
  }

  long totalNanos() {
    return totalNanos;
  }

  /** Starts a new longest-wait window (measurements of one phase of a run). */
  void resetMax() {
    maxNanos = 0;
  }
}
