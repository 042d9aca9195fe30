package io.tidestore.osd.pg;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;

/**
 * What deep scrub shares across an OSD's shards: the one slot (an OSD deep-scrubs one PG at a time,
 * as Ceph's {@code osd_max_scrubs} = 1), the schedule's interval, its read rate (Ceph paces it with
 * {@code osd_scrub_sleep}; here a byte rate, the store scrub's), and the counters. A scheduled
 * scrub takes the slot only when it is free; a scrub asked for waits for it, in turn. Thread-safe.
 */
final class ScrubSlot {
  private final long intervalMillis;
  private final long bytesPerSecond;
  private final Counter objects;
  private final Counter errors;
  private final Counter repaired;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private boolean taken;

  /**
   * @param intervalMillis how long after a PG's last deep scrub its primary scrubs it again; 0:
   *     only on demand
   * @param bytesPerSecond how fast a scrub reads each object's copies; 0: as fast as it can
   */
  ScrubSlot(MeterRegistry registry, long intervalMillis, long bytesPerSecond) {
    this.intervalMillis = intervalMillis;
    this.bytesPerSecond = bytesPerSecond;
    this.objects =
        Counter.builder("tidestore.osd.scrub.objects")
            .description("Objects deep scrub compared across their PG's acting set, as primary")
            .register(registry);
    this.errors =
        Counter.builder("tidestore.osd.scrub.errors")
            .description("Bad copies (or objects without an authoritative copy) deep scrub found")
            .register(registry);
    this.repaired =
        Counter.builder("tidestore.osd.scrub.repaired")
            .description("Bad copies deep scrub replaced with the authoritative copy")
            .register(registry);
  }

  long intervalMillis() {
    return intervalMillis;
  }

  /**
   * How long a scrub waits after comparing an object of {@code bytes} (each member read that much),
   * so that it reads at its rate.
   */
  long pauseMillisFor(long bytes) {
    return bytesPerSecond == 0 ? 0 : (long) (bytes * 1000.0 / bytesPerSecond);
  }

  /** Takes the slot if it is free. */
  synchronized boolean tryTake() {
    if (taken) {
      return false;
    }
    taken = true;
    return true;
  }

  /** Runs {@code granted} (on this thread or the releasing one) once the slot is this caller's. */
  void take(Runnable granted) {
    synchronized (this) {
      if (taken) {
        waiting.add(granted);
        return;
      }
      taken = true;
    }
    granted.run();
  }

  /** Gives the slot to the next waiter, or frees it. */
  void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        taken = false;
        return;
      }
    }
    next.run();
  }

  /** Counts a finished scrub's findings. */
  void count(long objectsCompared, int inconsistent, int repairedCopies) {
    objects.increment((double) objectsCompared);
    errors.increment(inconsistent);
    repaired.increment(repairedCopies);
  }
}
