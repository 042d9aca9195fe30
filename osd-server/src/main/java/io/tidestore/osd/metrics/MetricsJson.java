package io.tidestore.osd.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.DistributionDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;

/**
 * {@code dump_metrics}: the same snapshot {@code /metrics} serves, as JSON shaped like Ceph's
 * {@code dump_metrics}/{@code perf dump}. Counters and gauges are {@code {name, labels, value}} (a
 * counter's name carries {@code _total}, as in the text); histograms and summaries are {@code
 * {name, labels, count, sum, avg}} plus the {@code histogram} buckets (upper bound {@code le},
 * cumulative {@code count}, as Prometheus has them) or the {@code quantiles}.
 */
final class MetricsJson {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private MetricsJson() {}

  /** The metrics whose exposition name starts with {@code prefix}, pretty-printed. */
  public static String dump(MetricSnapshots snapshots, String prefix) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode metrics = root.putArray("metrics");
    for (MetricSnapshot metric : snapshots) {
      String name = metric.getMetadata().getPrometheusName();
      if (metric instanceof CounterSnapshot) {
        name += "_total";
      }
      if (!name.startsWith(prefix)) {
        continue;
      }
      for (DataPointSnapshot point : metric.getDataPoints()) {
        ObjectNode out = metrics.addObject();
        out.put("name", name);
        ObjectNode labels = out.putObject("labels");
        for (Label label : point.getLabels()) {
          labels.put(label.getName(), label.getValue());
        }
        fill(out, point);
      }
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("metrics JSON", e);
    }
  }

  private static void fill(ObjectNode out, DataPointSnapshot point) {
    switch (point) {
      case CounterSnapshot.CounterDataPointSnapshot c -> out.put("value", c.getValue());
      case GaugeSnapshot.GaugeDataPointSnapshot g -> out.put("value", g.getValue());
      case UnknownSnapshot.UnknownDataPointSnapshot u -> out.put("value", u.getValue());
      case DistributionDataPointSnapshot d -> {
        out.put("count", d.getCount());
        out.put("sum", d.getSum());
        out.put("avg", d.getCount() == 0 ? 0 : d.getSum() / d.getCount());
        if (d instanceof HistogramSnapshot.HistogramDataPointSnapshot h
            && h.hasClassicHistogramData()) {
          ArrayNode buckets = out.putArray("histogram");
          long cumulative = 0;
          for (ClassicHistogramBucket bucket : h.getClassicBuckets()) {
            cumulative += bucket.getCount();
            ObjectNode b = buckets.addObject();
            b.put("le", bound(bucket.getUpperBound()));
            b.put("count", cumulative);
          }
        } else if (d instanceof SummarySnapshot.SummaryDataPointSnapshot s) {
          ObjectNode quantiles = out.putObject("quantiles");
          for (Quantile q : s.getQuantiles()) {
            quantiles.put(Double.toString(q.getQuantile()), q.getValue());
          }
        }
      }
      default -> out.put("type", point.getClass().getSimpleName());
    }
  }

  private static String bound(double upper) {
    return Double.isInfinite(upper) ? "+Inf" : Double.toString(upper);
  }
}
