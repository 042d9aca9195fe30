package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.osd.reactor.ReactorStats;
import io.tidestore.osd.reactor.Reactors;
import java.util.List;

/**
 * Per-reactor utilization as counters: seconds busy, seconds idle (blocked waiting for I/O) and
 * loop passes, tagged {@code reactor} (the loop's index in its group), {@code cpu}, {@code thread}
 * (its name: {@code reactor-N}, or the classic engine's {@code msgr-N} and {@code io-N} loops; its
 * op workers, commit thread and finisher are plain threads and have none) and {@code engine}.
 * Utilization over an interval is {@code rate(busy) / (rate(busy) + rate(idle))}; {@code
 * tidestore_reactor_utilization} is that of the last second, as Seastar's {@code
 * reactor_utilization} (polling with nothing to do counts as idle). Read from any thread.
 */
public final class ReactorMetrics {
  private ReactorMetrics() {}

  /** Registers the meters of every loop of every group, and the engine as an info gauge. */
  public static void bind(MeterRegistry registry, String engine, List<Reactors> groups) {
    Gauge.builder("tidestore.osd.engine", () -> 1)
        .description("The threading engine serving ops (value always 1; see the engine tag)")
        .tag("engine", engine)
        .register(registry);
    for (Reactors group : groups) {
      for (Reactor reactor : group.all()) {
        bind(registry, engine, reactor);
      }
    }
  }

  private static void bind(MeterRegistry registry, String engine, Reactor reactor) {
    String index = Integer.toString(reactor.index());
    String cpu = reactor.pinnedCpu() < 0 ? "none" : Integer.toString(reactor.pinnedCpu());
    ReactorStats stats = reactor.stats();
    FunctionCounter.builder("tidestore.reactor.busy", stats, s -> s.busyNanosAcquire() / 1e9)
        .baseUnit("seconds")
        .description("Time the reactor spent handling I/O events, tasks and pass hooks")
        .tags("reactor", index, "cpu", cpu, "thread", reactor.name(), "engine", engine)
        .register(registry);
    FunctionCounter.builder("tidestore.reactor.idle", stats, s -> s.idleNanosAcquire() / 1e9)
        .baseUnit("seconds")
        .description("Time the reactor spent blocked waiting for I/O")
        .tags("reactor", index, "cpu", cpu, "thread", reactor.name(), "engine", engine)
        .register(registry);
    Gauge.builder("tidestore.reactor.utilization", stats, s -> s.utilization(System.nanoTime()))
        .description(
            "Busy fraction of the reactor's last second (0-1); polling with nothing to do and"
                + " sleeping count as idle")
        .tags("reactor", index, "cpu", cpu, "thread", reactor.name(), "engine", engine)
        .register(registry);
    FunctionCounter.builder("tidestore.reactor.passes", stats, ReactorStats::passesAcquire)
        .description("Event-loop passes")
        .tags("reactor", index, "cpu", cpu, "thread", reactor.name(), "engine", engine)
        .register(registry);
  }
}
