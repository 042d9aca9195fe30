package io.tidestore.bench.metrics;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tidestore.osd.metrics.HistogramFamily;
import io.tidestore.osd.metrics.RecordedHistogram;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Recording one op's latency on the op path, two reactor threads at once: the daemon's {@link
 * RecordedHistogram} (one single-writer HdrHistogram recorder per reactor, merged at scrape)
 * against its natural peer, one Micrometer {@link Timer} with a percentile histogram shared by both
 * threads (what {@code Timer.builder(...).register(registry)} per op type gives). Run with {@code
 * -prof gc} to see the allocation per op.
 */
@State(Scope.Benchmark)
@Threads(2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OpLatencyRecordBenchmark {
  private final AtomicInteger writers = new AtomicInteger();
  private RecordedHistogram perReactor;
  private PrometheusMeterRegistry registry;
  private Timer sharedTimer;

  /** One reactor: its writer slot and a cheap stream of latencies from 10 us to ~10 ms. */
  @State(Scope.Thread)
  public static class Reactor {
    int writer;
    long seed;

    @Setup(Level.Trial)
    public void setUp(OpLatencyRecordBenchmark bench) {
      writer = bench.writers.getAndIncrement() % 2;
      seed = 0x9E3779B97F4A7C15L * (writer + 1);
    }

    long nextNanos() {
      seed ^= seed << 13;
      seed ^= seed >>> 7;
      seed ^= seed << 17;
      return 10_000 + (seed & 0x7FFFFF);
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    perReactor = new RecordedHistogram(2, HistogramFamily.LATENCY_HIGHEST_NANOS);
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    sharedTimer = Timer.builder("op.latency").publishPercentileHistogram().register(registry);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    registry.close();
  }

  @Benchmark
  public void recordedHistogramPerReactor(Reactor reactor) {
    perReactor.record(reactor.writer, reactor.nextNanos());
  }

  @Benchmark
  public void micrometerTimerShared(Reactor reactor) {
    sharedTimer.record(reactor.nextNanos(), TimeUnit.NANOSECONDS);
  }
}
