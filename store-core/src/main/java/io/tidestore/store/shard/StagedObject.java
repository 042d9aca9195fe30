package io.tidestore.store.shard;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * Where one object will be once every batched or in-flight mutation of it applies: the write path
 * orders and merges mutations against this, never against the applied index entry alone. Exists
 * only while the object has a mutation staged, waiting or in a read-modify-write (see {@link
 * Staging}); without one, the staged state is the applied state. Owner thread only.
 */
final class StagedObject {
  final long id;

  /** Whether the object exists once everything staged applies. */
  boolean exists;

  /** Its size once everything staged applies. */
  long size;

  /** Staged operations not yet applied (or failed). */
  int unapplied;

  /**
   * Sizes that staged, not yet applied truncates and removes (0) cut the object to, in staging
   * order; null when none. Applied blocks at or past the smallest are stale for merges: the cut
   * will drop them, and writes staged after it are in {@link #pending} until they apply.
   */
  ArrayDeque<Long> cuts;

  /** Blocks of batched or in-flight writes, by block index: the newest content for merges. */
  HashMap<Integer, MemorySegment> pending;

  /** Mutations queued behind one that waits for a read-modify-write read or for space. */
  ArrayDeque<Runnable> waiting;

  /**
   * Set while queued mutations run after a wait ({@link MutationGate#resume}): they hold this
   * object, so it must not be dropped and recreated under them even if one of them settles it.
   */
  boolean resuming;

  StagedObject(long id, boolean exists, long size) {
    this.id = id;
    this.exists = exists;
    this.size = size;
  }

  /** Records a staged cut. */
  void cutStaged(long size) {
    if (cuts == null) {
      cuts = new ArrayDeque<>();
    }
    cuts.add(size);
  }

  /** The oldest staged cut applied. */
  void cutApplied() {
    if (cuts != null) {
      cuts.poll();
      if (cuts.isEmpty()) {
        cuts = null;
      }
    }
  }

  /** Smallest pending cut, Long.MAX_VALUE when none. */
  long lowestCut() {
    long min = Long.MAX_VALUE;
    if (cuts != null) {
      for (long c : cuts) {
        min = Math.min(min, c);
      }
    }
    return min;
  }

  /** The newest staged copy of block {@code b}, or null. */
  MemorySegment pendingBlock(int b) {
    return pending == null ? null : pending.get(b);
  }

  void putPending(int b, MemorySegment slice) {
    if (pending == null) {
      pending = new HashMap<>();
    }
    pending.put(b, slice);
  }

  /** Whether nothing of the write path refers to this object any more. */
  boolean settled() {
    return unapplied == 0 && waiting == null && !resuming;
  }
}
