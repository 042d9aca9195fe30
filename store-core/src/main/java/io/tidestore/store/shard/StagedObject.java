package io.tidestore.store.shard;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Where one object will be once every batched or in-flight mutation of it applies: the write path
 * orders and merges mutations against this, never against the applied index entry alone. Exists
 * only while the object has a mutation staged, waiting or in a read-modify-write (see {@link
 * Staging}); without one, the staged state is the applied state. {@link Staging} reuses one that
 * settled for the next object ({@link #reuse}), so the write path allocates none per operation.
 * Owner thread only.
 */
final class StagedObject {
  /** The object's id; 0 while this waits in {@link Staging}'s pool for its next object. */
  long id;

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

  /**
   * Blocks of batched or in-flight writes, keyed by block index + 1 ({@link LongObjectMap} keeps
   * key 0 for empty slots): the newest content for merges. A primitive map, kept with this object
   * when it is reused, so staging a block boxes and allocates nothing.
   */
  private final LongObjectMap<MemorySegment> pending = new LongObjectMap<>();

  /** Mutations queued behind one that waits for a read-modify-write read or for space. */
  ArrayDeque<Runnable> waiting;

  /**
   * Set while queued mutations run after a wait ({@link MutationGate#resume}): they hold this
   * object, so it must not be dropped and recreated under them even if one of them settles it.
   */
  boolean resuming;

  StagedObject(long id, boolean exists, long size) {
    reuse(id, exists, size);
  }

  /** Starts over as the staged state of object {@code id}, {@code exists} with {@code size}. */
  void reuse(long id, boolean exists, long size) {
    this.id = id;
    this.exists = exists;
    this.size = size;
    this.unapplied = 0;
    this.cuts = null;
    this.waiting = null;
    this.resuming = false;
    if (!pending.isEmpty()) {
      pending.clear();
    }
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
    return pending.get(b + 1L);
  }

  void putPending(int b, MemorySegment slice) {
    pending.put(b + 1L, slice);
  }

  /**
   * Block {@code b}'s staged copy {@code slice} applied: unless a newer one replaced it, drop it.
   */
  void pendingApplied(int b, MemorySegment slice) {
    MemorySegment newest = pending.get(b + 1L);
    if (newest != null && slice.equals(newest)) {
      pending.remove(b + 1L);
    }
  }

  /** Forgets the staged copies of blocks {@code keep} and later (a staged cut drops them). */
  void dropPendingFrom(int keep) {
    if (!pending.isEmpty()) {
      pending.removeKeysAtLeast(keep + 1L);
    }
  }

  /** Forgets every staged copy (a staged remove drops them all). */
  void clearPending() {
    if (!pending.isEmpty()) {
      pending.clear();
    }
  }

  /** Whether nothing of the write path refers to this object any more. */
  boolean settled() {
    return unapplied == 0 && waiting == null && !resuming;
  }
}
