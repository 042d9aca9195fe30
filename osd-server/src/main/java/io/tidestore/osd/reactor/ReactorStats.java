package io.tidestore.osd.reactor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Per-reactor utilization: nanoseconds busy (handling I/O events, tasks and pass hooks) and idle
 * (blocked waiting for I/O, or polling with nothing to do), the number of loop passes, and the busy
 * fraction of the last whole second. Single writer (the reactor thread, release stores); any thread
 * may read (acquire loads) for metrics.
 */
public final class ReactorStats {
  private static final VarHandle BUSY;
  private static final VarHandle IDLE;
  private static final VarHandle PASSES;
  private static final VarHandle LAST_SECOND;
  private static final VarHandle WAITING_SINCE;
  private static final long SECOND = 1_000_000_000L;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      BUSY = lookup.findVarHandle(ReactorStats.class, "busyNanos", long.class);
      IDLE = lookup.findVarHandle(ReactorStats.class, "idleNanos", long.class);
      PASSES = lookup.findVarHandle(ReactorStats.class, "passes", long.class);
      LAST_SECOND = lookup.findVarHandle(ReactorStats.class, "lastSecond", double.class);
      WAITING_SINCE = lookup.findVarHandle(ReactorStats.class, "waitingSince", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("unused") // through BUSY
  private long busyNanos;

  @SuppressWarnings("unused") // through IDLE
  private long idleNanos;

  @SuppressWarnings("unused") // through PASSES
  private long passes;

  @SuppressWarnings("unused") // through LAST_SECOND
  private double lastSecond;

  /** When the reactor entered a run that may block; 0 while it is not in one. */
  @SuppressWarnings("unused") // through WAITING_SINCE
  private long waitingSince;

  // The current window, reactor thread only.
  private long windowBusy;
  private long windowTotal;

  /** Reactor thread only: entering a run that may block in the kernel. */
  void waiting(long nowNanos) {
    WAITING_SINCE.setRelease(this, nowNanos);
  }

  /** Reactor thread only: {@code busy} and {@code idle} nanoseconds up to {@code nowNanos}. */
  void record(long busy, long idle, long nowNanos) {
    WAITING_SINCE.setRelease(this, 0L);
    BUSY.setRelease(this, (long) BUSY.get(this) + busy);
    IDLE.setRelease(this, (long) IDLE.get(this) + idle);
    windowBusy += busy;
    windowTotal += busy + idle;
    if (windowTotal >= SECOND) {
      LAST_SECOND.setRelease(this, (double) windowBusy / windowTotal);
      windowBusy = 0;
      windowTotal = 0;
    }
  }

  /** Reactor thread only. */
  void passEnded() {
    PASSES.setRelease(this, (long) PASSES.get(this) + 1);
  }

  /**
   * The busy fraction (0..1) of the reactor's last second: of the last window of at least a second
   * of passes, or 0 when the reactor has been blocked for over a second (an idle reactor ends no
   * pass that would close a window). 0 before the first second.
   */
  public double utilization(long nowNanos) {
    long since = (long) WAITING_SINCE.getAcquire(this);
    if (since != 0 && nowNanos - since > SECOND) {
      return 0;
    }
    return (double) LAST_SECOND.getAcquire(this);
  }

  public long busyNanosAcquire() {
    return (long) BUSY.getAcquire(this);
  }

  public long idleNanosAcquire() {
    return (long) IDLE.getAcquire(this);
  }

  public long passesAcquire() {
    return (long) PASSES.getAcquire(this);
  }
}
