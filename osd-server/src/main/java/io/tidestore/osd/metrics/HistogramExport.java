package io.tidestore.osd.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Exports {@link HistogramFamily histogram families} into Micrometer's Prometheus registry as
 * classic Prometheus histograms ({@code _bucket}, {@code _sum}, {@code _count}), so they appear in
 * {@code /metrics} next to Micrometer's meters and in {@code dump_metrics}. Micrometer's own Timer
 * is not used on the op path: one Timer shared by all reactors would be a point of cross-thread
 * contention, and the composite registry's record path is not allocation-free.
 */
final class HistogramExport implements MultiCollector {
  private final List<HistogramFamily> families = new CopyOnWriteArrayList<>();

  void add(HistogramFamily family) {
    families.add(family);
  }

  @Override
  public MetricSnapshots collect() {
    List<MetricSnapshot> out = new ArrayList<>();
    for (HistogramFamily family : families) {
      List<HistogramFamily.Series> series = family.seriesSnapshot();
      if (series.isEmpty()) {
        continue;
      }
      HistogramSnapshot.Builder metric =
          HistogramSnapshot.builder().name(family.name()).help(family.help());
      for (HistogramFamily.Series s : series) {
        RecordedHistogram.Snapshot snap =
            s.histogram().snapshot(family.upperBounds(), family.scale());
        ClassicHistogramBuckets.Builder buckets = ClassicHistogramBuckets.builder();
        long previous = 0;
        for (int b = 0; b < snap.upperBounds().length; b++) {
          // The model takes per-bucket counts and accumulates them itself.
          buckets.bucket(snap.upperBounds()[b], snap.cumulativeCounts()[b] - previous);
          previous = snap.cumulativeCounts()[b];
        }
        metric.dataPoint(
            HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .labels(Labels.of(s.labels()))
                .classicHistogramBuckets(buckets.build())
                .sum(snap.sum())
                .build());
      }
      out.add(metric.build());
    }
    return new MetricSnapshots(out);
  }
}
