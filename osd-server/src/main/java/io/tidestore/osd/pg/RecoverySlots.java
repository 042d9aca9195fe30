package io.tidestore.osd.pg;

import java.util.ArrayDeque;

/**
 * The recovery throttle of one OSD (Ceph's {@code osd_recovery_max_active}): at most {@link #MAX}
 * rounds of async recovery run at once across its shards, the others wait their turn, so that the
 * PGs that serve while they recover leave most of the OSD to client ops. Recovery with a PG's ops
 * held is not throttled: those PGs serve nothing until it ends. Thread-safe.
 */
final class RecoverySlots {
  /** Rounds at once: Ceph's default for osd_recovery_max_active on disks it takes for HDDs. */
  static final int MAX = 3;

  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int used;

  /** Runs {@code then} (which hops to its own thread) once a slot is free, holding it. */
  void acquire(Runnable then) {
    synchronized (this) {
      if (used == MAX) {
        waiting.add(then);
        return;
      }
      used++;
    }
    then.run();
  }

  /** Frees a slot, or hands it to the next waiting round. */
  void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        used--;
      }
    }
    if (next != null) {
      next.run();
    }
  }
}
