package io.tidestore.store.journal;

import java.util.ArrayList;

/**
 * Lines up the shared fdatasyncs of the journals that use one I/O queue (the shards one reactor
 * owns; in practice files on one device). Every fdatasync on a disk without FUA ends in a flush of
 * the whole device cache, so shards that each flush on their own schedule keep the device flushing
 * back to back and every shard waits behind the others' flushes. Instead syncs go in rounds: a
 * journal with records to cover starts a round if none runs, or else waits for the current one to
 * end; when the last sync of a round completes, every waiting journal issues its sync together, in
 * one submission, and the block layer merges flushes that arrive together.
 *
 * <p>Owner thread of the queue only (all its journals run there).
 */
public final class SyncRound implements SyncSharing {
  /** What a journal does when the round it waited for begins. */
  interface Member {
    /** Issues the sync it waited to issue; false when it no longer has anything to cover. */
    boolean startQueuedSync();
  }

  private final ArrayList<Member> waiting = new ArrayList<>();
  private final ArrayList<Member> starting = new ArrayList<>();
  private int running;
  private long rounds;

  /**
   * A journal has records to cover. Returns true when it may issue its sync now (no round runs, and
   * this starts one); otherwise it is queued and {@link Member#startQueuedSync} is called when the
   * current round ends.
   */
  boolean request(Member m) {
    if (running == 0) {
      running = 1;
      rounds++;
      return true;
    }
    if (!waiting.contains(m)) {
      waiting.add(m);
    }
    return false;
  }

  /** One sync of the round completed or failed; the last one starts the next round. */
  void finished() {
    if (--running > 0 || waiting.isEmpty()) {
      return;
    }
    starting.addAll(waiting);
    waiting.clear();
    rounds++;
    for (Member m : starting) {
      if (m.startQueuedSync()) {
        running++;
      }
    }
    starting.clear();
  }

  /** A closing journal leaves the queue (it will never sync again). */
  void forget(Member m) {
    waiting.remove(m);
  }

  /** Rounds started so far (each is one or more syncs issued together). */
  @Override
  public long rounds() {
    return rounds;
  }
}
