package io.tidestore.osd.pg;

import java.util.ArrayDeque;

/**
 * The recovery throttle of one OSD, as Ceph's {@code osd_recovery_max_active} and {@code
 * osd_recovery_sleep}: at most {@link #max} rounds of async recovery run at once across its shards
 * (the others wait their turn), and each of them pauses {@link #pauseMillis} for every MiB it
 * moves, so that the PGs that serve while they recover leave most of the OSD to client ops.
 * Recovery with a PG's ops held is not throttled: those PGs serve nothing until it ends.
 * Thread-safe.
 */
final class RecoverySlots {
  private final int max;
  private final long pauseMillis;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int used;

  /**
   * @param max rounds at once (at least 1)
   * @param pauseMillis the pause for each MiB a round moves (0: none)
   */
  RecoverySlots(int max, long pauseMillis) {
    if (max < 1 || pauseMillis < 0) {
      throw new IllegalArgumentException("recovery slots " + max + ", pause " + pauseMillis);
    }
    this.max = max;
    this.pauseMillis = pauseMillis;
  }

  /** The pause for each MiB an async recovery round moves, in milliseconds. */
  long pauseMillis() {
    return pauseMillis;
  }

  /** Runs {@code then} (which hops to its own thread) once a slot is free, holding it. */
  void acquire(Runnable then) {
    synchronized (this) {
      if (used == max) {
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
