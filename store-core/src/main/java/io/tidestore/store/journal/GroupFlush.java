package io.tidestore.store.journal;

import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.util.ArrayList;

/**
 * One fdatasync for every shard on an I/O queue, where all shards are regions of one file or device
 * (the {@code volume} and {@code device} layouts): the shards' journals write their records with
 * plain writes, and a flush issued once none of them has a write in flight makes every record whose
 * writes had completed durable, whichever shard it belongs to. Group commit across the shards a
 * reactor owns, as one journal stream per reactor would give, without changing the record format or
 * tying a record to a reactor (the reactor count still changes without mkfs).
 *
 * <p>Why wait until no member writes: records sealed while a flush is in flight are held back to
 * grow ({@link SealedRecords#canWriteNow}) and written together when it completes; flushing as soon
 * as the first of those writes completes would cover only it, and the others would pay a flush of
 * their own. The wait is bounded: no member seals a record while its writes are held for the flush,
 * and clients have a bounded number of writes outstanding.
 *
 * <p>Sound only because the members share one file: an fdatasync covers the file, not the handle it
 * was issued on. Shards that are files of their own use {@link SyncRound} instead. Owner thread of
 * the queue only.
 */
public final class GroupFlush implements SyncSharing, IoCompletion {
  private final IoQueue queue;
  private final ArrayList<SharedSync> members = new ArrayList<>();
  private ArrayList<SharedSync> covered = new ArrayList<>();
  private ArrayList<SharedSync> delivering = new ArrayList<>();
  private boolean inFlight;
  private boolean completing;
  private long flushes;

  public GroupFlush(IoQueue queue) {
    this.queue = queue;
  }

  void join(SharedSync member) {
    members.add(member);
  }

  /** A closing journal leaves: it is never flushed or told about a flush again. */
  void leave(SharedSync member) {
    members.remove(member);
    covered.remove(member);
    delivering.remove(member);
  }

  /** Whether a flush is in flight (records sealed now would only wait for the next one). */
  boolean inFlight() {
    return inFlight;
  }

  /**
   * A member's writes completed or it has new ones: issues the group's flush when none is in
   * flight, no member has a write in flight, and some member has a written record not yet covered.
   * The caller submits the queue.
   */
  void wake() {
    if (inFlight || completing) {
      return;
    }
    boolean uncovered = false;
    for (int i = 0; i < members.size(); i++) {
      SharedSync m = members.get(i);
      if (m.writesInFlight()) {
        return; // its completion wakes the group again
      }
      uncovered |= m.hasUncovered();
    }
    if (!uncovered || queue.capacity() == queue.inFlight()) {
      return; // nothing to do, or a completion frees a slot and comes back here
    }
    covered.clear();
    SharedSync through = null;
    for (int i = 0; i < members.size(); i++) {
      SharedSync m = members.get(i);
      if (m.cover()) {
        covered.add(m);
        through = m;
      }
    }
    inFlight = true;
    flushes++;
    queue.sync(through.file(), this, SharedSync.TAG);
  }

  @Override
  public void completed(long tag, int result) {
    deliver(null);
  }

  @Override
  public void failed(long tag, IoOpException error) {
    deliver(error);
  }

  /**
   * Tells every covered member, then flushes again if that is due. On success the steps are spread
   * over the members so the device is not idle while the reactor acknowledges: every covered record
   * is marked durable, every member seals the batch that grew during the flush and those writes are
   * submitted at once, and only then are the durable records applied and acknowledged. A failed
   * flush fails each member's oldest covered record and every later one: a member's journal never
   * acknowledges past a hole.
   */
  private void deliver(IoOpException error) {
    inFlight = false;
    ArrayList<SharedSync> told = covered;
    covered = delivering;
    delivering = told;
    completing = true;
    try {
      if (error != null) {
        for (int i = 0; i < delivering.size(); i++) {
          delivering.get(i).flushFailed(error);
        }
      } else {
        for (int i = 0; i < delivering.size(); i++) {
          delivering.get(i).journal().groupFlushed();
        }
        for (int i = 0; i < delivering.size(); i++) {
          delivering.get(i).journal().startNextRecord();
        }
        submit(true);
        for (int i = 0; i < delivering.size(); i++) {
          delivering.get(i).journal().applyDurable();
        }
      }
    } finally {
      delivering.clear();
      completing = false;
    }
    wake();
    submit(false);
  }

  /** Submits what was prepared; {@code now}: even inside the queue's batch (see deliver). */
  private void submit(boolean now) {
    try {
      if (now) {
        queue.submitNow();
      } else {
        queue.submit();
      }
    } catch (IOException e) {
      // A ring that cannot take submissions fails every journal on it: the next completion or
      // submit of theirs reports it. The flush issued by wake(), if any, never reached the kernel,
      // so its members fail with it rather than wait for it forever.
      if (inFlight) {
        failed(SharedSync.TAG, new IoOpException(IoOpException.Op.SYNC, 5, 0, 0, "submit: " + e));
      }
    }
  }

  @Override
  public long rounds() {
    return flushes;
  }
}
