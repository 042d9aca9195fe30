package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * {@link OsdMetrics#scrape} and {@link OsdMetrics#dumpJson} over a scrape of the real registry that
 * is taken again after every {@code reuses} pages served from it, rather than on every request. For
 * the admin-query fuzz target: a scrape samples every JVM meter (thread states, memory pools, CPU
 * load from /proc) in 1 to 4 ms, which is what made the target slow, and no input steers it. The
 * page a request gets is built as the daemon builds it: the Prometheus text of a real scrape, and
 * {@code dump_metrics} filtered by the request's prefix and written by {@link MetricsJson} on each
 * request.
 */
public final class CachedScrapes {
  private final PrometheusMeterRegistry prometheus;
  private final int reuses;
  private int served;
  private String text;
  private MetricSnapshots snapshots;

  public CachedScrapes(OsdMetrics metrics, int reuses) {
    this.prometheus =
        ((CompositeMeterRegistry) metrics.registry())
            .getRegistries().stream()
                .filter(PrometheusMeterRegistry.class::isInstance)
                .map(PrometheusMeterRegistry.class::cast)
                .findFirst()
                .orElseThrow();
    this.reuses = reuses;
  }

  /** {@code /metrics}: the Prometheus text, as {@link OsdMetrics#scrape}. */
  public synchronized String scrape() {
    refresh();
    return text;
  }

  /** {@code /dump_metrics?prefix=P}: as {@link OsdMetrics#dumpJson}. */
  public synchronized String dumpJson(String prefix) {
    refresh();
    return MetricsJson.dump(snapshots, prefix);
  }

  private void refresh() {
    if (text == null || served++ == reuses) {
      served = 0;
      text = prometheus.scrape();
      snapshots = prometheus.getPrometheusRegistry().scrape();
    }
  }
}
