package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.osd.reactor.ReactorStats;
import io.tidestore.osd.reactor.Reactors;

/**
 * Per-reactor utilization as counters: seconds busy, seconds idle (blocked waiting for I/O) and
 * loop passes, tagged {@code reactor} and {@code cpu}. Utilization over an interval is {@code
 * rate(busy) / (rate(busy) + rate(idle))}. Read from any thread.
 */
public final class ReactorMetrics {
  private ReactorMetrics() {}

  /** Registers the meters of every reactor. */
  public static void bind(MeterRegistry registry, Reactors reactors) {
    for (Reactor reactor : reactors.all()) {
      String index = Integer.toString(reactor.index());
      String cpu = reactor.pinnedCpu() < 0 ? "none" : Integer.toString(reactor.pinnedCpu());
      ReactorStats stats = reactor.stats();
      FunctionCounter.builder("tidestore.reactor.busy", stats, s -> s.busyNanosAcquire() / 1e9)
          .baseUnit("seconds")
          .description("Time the reactor spent handling I/O events, tasks and pass hooks")
          .tags("reactor", index, "cpu", cpu)
          .register(registry);
      FunctionCounter.builder("tidestore.reactor.idle", stats, s -> s.idleNanosAcquire() / 1e9)
          .baseUnit("seconds")
          .description("Time the reactor spent blocked waiting for I/O")
          .tags("reactor", index, "cpu", cpu)
          .register(registry);
      FunctionCounter.builder("tidestore.reactor.passes", stats, ReactorStats::passesAcquire)
          .description("Event-loop passes")
          .tags("reactor", index, "cpu", cpu)
          .register(registry);
    }
  }
}
