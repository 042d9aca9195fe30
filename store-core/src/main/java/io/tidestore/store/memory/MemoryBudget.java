package io.tidestore.store.memory;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon's one off-heap memory limit ({@code --memory-limit}). Off-heap memory is not bounded
 * by the JVM's direct-memory limit, so every owner of native memory (cache slabs, I/O buffers,
 * index) reserves its bytes here before allocating them and releases them after freeing; a
 * reservation beyond the limit fails with {@link MemoryBudgetExceededException} and allocates
 * nothing.
 *
 * <p><b>Threading:</b> thread-safe and lock-free; reservations come from any shard's thread, the
 * gauges are read from the metrics thread. Reservations are rare (startup, slab growth), never per
 * I/O.
 */
public final class MemoryBudget {
  private final long limit;
  private final AtomicLong reserved = new AtomicLong();
  private final Map<MemoryUse, AtomicLong> byUse = new EnumMap<>(MemoryUse.class);

  public MemoryBudget(long limitBytes) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("memory limit must be > 0 bytes: " + limitBytes);
    }
    this.limit = limitBytes;
    for (MemoryUse use : MemoryUse.values()) {
      byUse.put(use, new AtomicLong());
    }
  }

  /**
   * Reserves {@code bytes} for {@code use}; {@code what} names the owner in the error (e.g. "extent
   * cache of shard 3"). Close the returned reservation to give the bytes back.
   */
  public Reservation reserve(MemoryUse use, long bytes, String what) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot reserve negative bytes: " + bytes);
    }
    while (true) {
      long current = reserved.get();
      long next = current + bytes;
      if (next > limit || next < 0) {
        throw new MemoryBudgetExceededException(what, use, bytes, limit, current);
      }
      if (reserved.compareAndSet(current, next)) {
        byUse.get(use).addAndGet(bytes);
        return new Reservation(this, use, bytes);
      }
    }
  }

  void release(MemoryUse use, long bytes) {
    byUse.get(use).addAndGet(-bytes);
    reserved.addAndGet(-bytes);
  }

  /**
   * A budget that never refuses, for tools and tests that run the store outside the daemon (fsck,
   * the torture command); it still counts, so leaks show.
   */
  public static MemoryBudget unbounded() {
    return new MemoryBudget(Long.MAX_VALUE);
  }

  /** The limit in bytes. */
  public long limitBytes() {
    return limit;
  }

  /** Bytes reserved now, over every use (a gauge). */
  public long reservedBytes() {
    return reserved.get();
  }

  /** Bytes reserved now for {@code use} (a gauge). */
  public long reservedBytes(MemoryUse use) {
    return byUse.get(use).get();
  }

  /** Bytes still free under the limit (a gauge). */
  public long availableBytes() {
    return limit - reserved.get();
  }

  /** "2 GiB", "512 MiB", "4096 B": binary units, exact when they divide. */
  public static String formatBytes(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = bytes;
    while (Math.abs(v) >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return v == Math.rint(v)
        ? (long) v + " " + units[u]
        : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  @Override
  public String toString() {
    return "MemoryBudget(limit="
        + formatBytes(limit)
        + ", reserved="
        + formatBytes(reservedBytes())
        + ")";
  }

  /**
   * Bytes held against the budget until {@link #close()}; closing twice gives them back once.
   * Thread-safe.
   */
  public static final class Reservation implements AutoCloseable {
    private final MemoryBudget budget;
    private final MemoryUse use;
    private final long bytes;
    private final AtomicLong held;

    Reservation(MemoryBudget budget, MemoryUse use, long bytes) {
      this.budget = budget;
      this.use = use;
      this.bytes = bytes;
      this.held = new AtomicLong(bytes);
    }

    public long bytes() {
      return bytes;
    }

    public MemoryUse use() {
      return use;
    }

    public boolean isReleased() {
      return held.get() == 0 && bytes != 0;
    }

    @Override
    public void close() {
      long b = held.getAndSet(0);
      if (b != 0) {
        budget.release(use, b);
      }
    }
  }
}
