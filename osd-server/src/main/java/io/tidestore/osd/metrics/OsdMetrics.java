package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The daemon's meter registries: one composite that every component records into, published both as
 * JMX MBeans (domain {@code tidestore}, for jconsole) and as Prometheus text.
 */
public final class OsdMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry prometheus;
  private final JmxMeterRegistry jmx;
  private final CompositeMeterRegistry registry;
  private final JvmGcMetrics gcMetrics;
  private final HistogramExport histograms = new HistogramExport();
  private final List<Object> keptAlive = new CopyOnWriteArrayList<>();

  public OsdMetrics() {
    prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    jmx =
        new JmxMeterRegistry(
            new JmxConfig() {
              @Override
              public String get(String key) {
                return null;
              }

              @Override
              public String domain() {
                return "tidestore";
              }
            },
            Clock.SYSTEM);
    registry = new CompositeMeterRegistry();
    // Prometheus naming rules, as `promtool check metrics` lints them: no abbreviated units in
    // names (ProcessorMetrics' process.cpu.time is in "ns"; process.cpu.usage remains) and no
    // "_count" suffix on a gauge (system.cpu.count).
    registry
        .config()
        .meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")))
        .meterFilter(
            new MeterFilter() {
              @Override
              public Meter.Id map(Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
              }
            });
    prometheus.getPrometheusRegistry().register(histograms);
    registry.add(prometheus);
    registry.add(jmx);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    gcMetrics = new JvmGcMetrics();
    gcMetrics.bindTo(registry);
  }

  /** Where components register their meters. */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Keeps {@code state} reachable for as long as the metrics: Micrometer references the state
   * objects of function counters and gauges weakly, so state only meters point at would vanish.
   */
  public <T> T keepAlive(T state) {
    keptAlive.add(state);
    return state;
  }

  /** Exports {@code family} as a Prometheus histogram (and in {@link #dumpJson}). */
  public HistogramFamily histogram(HistogramFamily family) {
    histograms.add(family);
    return family;
  }

  /** {@code dump_metrics}: the metrics whose name starts with {@code prefix}, as JSON. */
  public String dumpJson(String prefix) {
    return MetricsJson.dump(prometheus.getPrometheusRegistry().scrape(), prefix);
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return prometheus.scrape();
  }

  @Override
  public void close() {
    gcMetrics.close();
    registry.close();
    jmx.close();
    prometheus.close();
  }
}
