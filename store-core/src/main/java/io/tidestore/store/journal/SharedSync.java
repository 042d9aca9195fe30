package io.tidestore.store.journal;

import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;

/**
 * The shared fdatasync of a journal in {@code SHARED_FDATASYNC} mode: records are written with
 * plain writes, and an fdatasync covers every record whose writes had completed when it was issued,
 * never one still in flight. At most one is in flight: a second would only queue behind the same
 * device cache flush, so records that complete meanwhile share the next one. How the journals on
 * one I/O queue share them is {@link SyncSharing}: each its own fdatasync, lined up in rounds
 * ({@link SyncRound}), or one fdatasync for the whole group ({@link GroupFlush}). Owner thread
 * only.
 */
final class SharedSync implements SyncRound.Member {
  /** Completion tag of the fdatasync (record tags are sequence numbers, all >= 1). */
  static final long TAG = -1;

  private final IoQueue queue;
  private final IoFile file;
  private final SyncRound round; // null in a group
  private final GroupFlush group; // null in rounds
  private final SealedRecords completion;
  private final SealedQueue sealed;
  private boolean inFlight;
  private boolean queued;
  private long syncs;

  /**
   * @param sealed the journal's sealed records in sequence order (read, never changed, here)
   * @param completion receives the fdatasync's completion, tagged {@link #TAG}
   */
  SharedSync(
      IoQueue queue,
      IoFile file,
      SyncSharing sharing,
      SealedRecords completion,
      SealedQueue sealed) {
    this.queue = queue;
    this.file = file;
    this.round = sharing instanceof SyncRound r ? r : null;
    this.group = sharing instanceof GroupFlush g ? g : null;
    this.completion = completion;
    this.sealed = sealed;
    if (group != null) {
      group.join(this);
    }
  }

  /**
   * Whether a record sealed now should rather keep growing. Alone: while an fdatasync is in flight
   * (the record would only wait for the next one). In a group: while the group's flush is in
   * flight, and while a record of this journal is being written, waits for the group's next flush
   * or is covered by the one in flight: one record per journal per flush, as many operations in it
   * as arrived meanwhile. Measured against sealing more often (docs/benchmarks.md, "One flush for
   * the shards of a reactor"): each further record is a device write and a completion on the
   * reactor, and its operations would have waited for the same flush anyway.
   */
  boolean holdsNewRecords() {
    if (group == null) {
      return inFlight;
    }
    if (group.inFlight()) {
      return true;
    }
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (b.submitted && !b.durable && !b.failed) {
        return true;
      }
    }
    return false;
  }

  /** The journal's file (the group flushes through one member's handle). */
  IoFile file() {
    return file;
  }

  /** Whether a record's writes are being made: a flush issued now would not cover it. */
  boolean writesInFlight() {
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (b.submitted && !b.written && !b.durable && !b.failed) {
        return true;
      }
    }
    return false;
  }

  /**
   * The group flushes: marks every written, uncovered record as covered by it; returns whether
   * there was any.
   */
  boolean cover() {
    boolean any = false;
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (uncovered(b)) {
        b.syncing = true;
        any = true;
      }
    }
    return any;
  }

  /** The group's flush that covered records of this journal failed: they fail, and every later. */
  void flushFailed(IoOpException error) {
    completion.failed(TAG, error);
  }

  /** The journal whose records this covers (the group drives its steps after a flush). */
  SealedRecords journal() {
    return completion;
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
    if (group != null) {
      group.wake();
      return;
    }
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

  boolean hasUncovered() {
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
    if (round != null) {
      round.finished();
    }
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
    if (round != null) {
      round.finished();
    }
    return first;
  }

  /** The journal closes: it leaves the queue's rounds. */
  void forget() {
    if (round != null) {
      round.forget(this);
    } else {
      group.leave(this);
    }
    queued = false;
  }
}
