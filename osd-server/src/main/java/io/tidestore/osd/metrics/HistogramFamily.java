package io.tidestore.osd.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * One Prometheus histogram metric (name, help, buckets) and its series, each a {@link
 * RecordedHistogram} with its label values. Series are added at startup, before the first scrape;
 * reads are thread-safe.
 *
 * @param name the Prometheus base name (no {@code _bucket}/{@code _sum}/{@code _count})
 * @param scale multiplies recorded values into the exported unit (1e-9 for nanoseconds to seconds)
 * @param upperBounds bucket upper bounds in the exported unit, ascending, without +Inf
 */
public record HistogramFamily(
    String name, String help, double scale, double[] upperBounds, List<Series> series) {

  /** Latency buckets, seconds: 10 us to 10 s. */
  public static final double[] LATENCY_SECONDS = {
    10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 0.1, 0.25,
    0.5, 1, 2.5, 5, 10
  };

  /** Highest latency a histogram resolves; slower ops count as this (and land in +Inf). */
  public static final long LATENCY_HIGHEST_NANOS = 60_000_000_000L;

  public HistogramFamily(String name, String help, double scale, double[] upperBounds) {
    this(name, help, scale, withInf(upperBounds), new ArrayList<>());
  }

  /** One series: label names and values alternate, as in {@code "op", "read"}. */
  public record Series(String[] labels, RecordedHistogram histogram) {}

  /** Adds a series; startup only. */
  public RecordedHistogram add(RecordedHistogram histogram, String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name/value pairs");
    }
    synchronized (series) {
      series.add(new Series(labels.clone(), histogram));
    }
    return histogram;
  }

  /** The series as they are now. */
  public List<Series> seriesSnapshot() {
    synchronized (series) {
      return List.copyOf(series);
    }
  }

  private static double[] withInf(double[] bounds) {
    double[] all = java.util.Arrays.copyOf(bounds, bounds.length + 1);
    all[bounds.length] = Double.POSITIVE_INFINITY;
    return all;
  }

  /** Powers of two from {@code first} up to {@code last}, inclusive. */
  public static double[] powersOfTwo(long first, long last) {
    List<Double> bounds = new ArrayList<>();
    for (long b = first; b <= last; b <<= 1) {
      bounds.add((double) b);
    }
    return bounds.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
