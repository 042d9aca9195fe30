package io.tidestore.osd.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * A distribution recorded by a fixed set of writer threads (reactors) and read by another (a
 * scrape). Each writer has its own {@link SingleWriterRecorder}, so recording neither allocates nor
 * shares a cache line with another reactor; a read swaps every writer's interval histogram out and
 * folds it into a running total, which is what the exports show (counts since start, as Prometheus
 * expects). Values are clamped to {@code [0, highest]}; 2 significant digits keep each histogram at
 * about 30 KiB while resolving every value to within 1%.
 *
 * <p>Writer {@code w} must only ever be recorded into from one thread at a time (its reactor).
 */
public final class RecordedHistogram {
  private static final int DIGITS = 2;

  /** Sums are per writer, 8 longs (a cache line) apart so reactors never share one. */
  private static final int PAD = 8;

  private static final VarHandle SUMS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long highest;
  private final SingleWriterRecorder[] writers;
  private final long[] sums;
  private final Histogram total; // guarded by this
  private final Histogram interval; // guarded by this

  /** A histogram of values in {@code [0, highest]} for {@code writerCount} writers. */
  public RecordedHistogram(int writerCount, long highest) {
    if (writerCount < 1) {
      throw new IllegalArgumentException("writerCount must be positive");
    }
    this.highest = highest;
    this.writers = new SingleWriterRecorder[writerCount];
    for (int i = 0; i < writerCount; i++) {
      writers[i] = new SingleWriterRecorder(highest, DIGITS);
    }
    this.sums = new long[writerCount * PAD];
    this.total = new Histogram(highest, DIGITS);
    this.interval = new Histogram(highest, DIGITS);
  }

  /** Records {@code value}; writer {@code writer}'s thread only. No allocation. */
  public void record(int writer, long value) {
    long v = Math.max(0, Math.min(value, highest));
    writers[writer].recordValue(v);
    int at = writer * PAD;
    SUMS.setRelease(sums, at, (long) SUMS.get(sums, at) + v);
  }

  /**
   * Folds what every writer recorded since the last read into the total and returns a copy of the
   * total state. Any thread.
   */
  public synchronized Snapshot snapshot(double[] upperBounds, double scale) {
    long sum = 0;
    for (int i = 0; i < writers.length; i++) {
      // The sum is read before the histogram swap: a value recorded in between shows in the
      // count now and in the sum at the next read, never twice.
      sum += (long) SUMS.getAcquire(sums, i * PAD);
      writers[i].getIntervalHistogramInto(interval);
      total.add(interval);
    }
    long[] cumulative = new long[upperBounds.length];
    for (int b = 0; b < upperBounds.length; b++) {
      double bound = upperBounds[b] / scale;
      cumulative[b] =
          Double.isInfinite(bound) || bound >= highest
              ? total.getTotalCount()
              : total.getCountBetweenValues(0, (long) bound);
    }
    return new Snapshot(
        total.getTotalCount(),
        sum * scale,
        upperBounds.clone(),
        cumulative,
        total.getValueAtPercentile(50) * scale,
        total.getValueAtPercentile(90) * scale,
        total.getValueAtPercentile(99) * scale,
        total.getValueAtPercentile(99.9) * scale);
  }

  /**
   * The state at one read, in export units (value x scale).
   *
   * @param count values recorded
   * @param sum their sum (exact, not bucketed)
   * @param upperBounds bucket upper bounds, the last +Inf
   * @param cumulativeCounts values at or below each bound (to within the histogram's 1%)
   */
  public record Snapshot(
      long count,
      double sum,
      double[] upperBounds,
      long[] cumulativeCounts,
      double p50,
      double p90,
      double p99,
      double p999) {}
}
