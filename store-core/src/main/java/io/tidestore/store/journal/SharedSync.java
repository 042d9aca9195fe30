package io.tidestore.store.journal;

import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;

/**
 * The shared fdatasync of a journal in {@code SHARED_FDATASYNC} mode: records are written with
 * plain writes, and one fdatasync covers every record whose writes had completed when it was
 * issued, never one still in flight. At most one is in flight: a second would only queue behind the
 * same device cache flush, so records that complete meanwhile share the next one. Syncs of the
 * journals on one I/O queue go in rounds ({@link SyncRound}). Owner thread only.
 */
final class SharedSync implements SyncRound.Member {
  /** Completion tag of the fdatasync (record tags are sequence numbers, all >= 1). */
  static final long TAG = -1;

  private final IoQueue queue;
  private final IoFile file;
  private final SyncRound round;
  private final IoCompletion completion;
  private final SealedQueue sealed;
  private boolean inFlight;
  private boolean queued;
  private long syncs;

  /**
   * @param sealed the journal's sealed records in sequence order (read, never changed, here)
   * @param completion receives the fdatasync's completion, tagged {@link #TAG}
   */
  SharedSync(
      IoQueue queue, IoFile file, SyncRound round, IoCompletion completion, SealedQueue sealed) {
    this.queue = queue;
    this.file = file;
    this.round = round;
    this.completion = completion;
    this.sealed = sealed;
  }

  /** Whether an fdatasync is in flight (a record sealed now would only wait behind it). */
  boolean inFlight() {
    return inFlight;
  }

  /** fdatasyncs completed: records / syncs is how many records one flush served. */
  long syncs() {
    return syncs;
  }

  /**
   * Issues an fdatasync covering every written, uncovered record, unless one is in flight or
   * queued, a write of this journal is still in flight ({@code writing > 0}: one sync will then
   * cover it too), or the queue's current round of syncs has to end first.
   */
  void startIfIdle(int writing) {
    // Runs after a failure too: records older than the failed one whose writes completed are not
    // concerned by it and still become durable (and are acknowledged) through a sync of their own.
    if (inFlight || queued || writing > 0 || !hasUncovered()) {
      return;
    }
    if (queue.capacity() == queue.inFlight()) {
      return; // a completion frees a slot and comes back here
    }
    if (round.request(this)) {
      issue();
    } else {
      queued = true;
    }
  }

  @Override
  public boolean startQueuedSync() {
    queued = false;
    if (inFlight || !hasUncovered() || queue.capacity() == queue.inFlight()) {
      return false;
    }
    issue();
    return true;
  }

  private boolean hasUncovered() {
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (uncovered(b)) {
        return true;
      }
    }
    return false;
  }

  private static boolean uncovered(Batch b) {
    return b.written && !b.syncing && !b.durable && !b.failed;
  }

  private void issue() {
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (uncovered(b)) {
        b.syncing = true;
      }
    }
    inFlight = true;
    queue.sync(file, completion, TAG);
  }

  /** The fdatasync completed: every record it covered is durable. */
  void completed(JournalObserver observer) {
    inFlight = false;
    syncs++;
    long now = System.nanoTime();
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (b.syncing) {
        b.syncing = false;
        if (!b.failed) {
          b.durable = true;
          observer.recordWritten(b.ops, b.recordBytes(), now - b.submitNanos);
        }
      }
    }
    round.finished();
  }

  /**
   * The fdatasync failed. Returns the oldest record it covered that has not failed yet (the caller
   * fails it and every later one: none may be acknowledged past a hole), or null.
   */
  Batch failed() {
    inFlight = false;
    Batch first = null;
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (b.syncing) {
        b.syncing = false;
        if (!b.failed && first == null) {
          first = b;
        }
      }
    }
    round.finished();
    return first;
  }

  /** The journal closes: it leaves the queue's rounds. */
  void forget() {
    round.forget(this);
    queued = false;
  }
}
