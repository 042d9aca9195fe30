package io.tidestore.osd.reactor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Per-reactor utilization: nanoseconds busy (handling I/O events, tasks and pass hooks) and idle
 * (blocked waiting for I/O), and the number of loop passes. Single writer (the reactor thread,
 * release stores); any thread may read (acquire loads) for metrics.
 */
public final class ReactorStats {
  private static final VarHandle BUSY;
  private static final VarHandle IDLE;
  private static final VarHandle PASSES;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      BUSY = lookup.findVarHandle(ReactorStats.class, "busyNanos", long.class);
      IDLE = lookup.findVarHandle(ReactorStats.class, "idleNanos", long.class);
      PASSES = lookup.findVarHandle(ReactorStats.class, "passes", long.class);
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

  /** Reactor thread only. */
  void recordPass(long busy, long idle) {
    BUSY.setRelease(this, (long) BUSY.get(this) + busy);
    IDLE.setRelease(this, (long) IDLE.get(this) + idle);
    PASSES.setRelease(this, (long) PASSES.get(this) + 1);
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
