package io.tidestore.mon;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.cluster.map.ClusterMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The monitor's metrics (docs/metrics.md "Monitor"): quorum state, map epoch, OSDs up and in, and
 * the failure reports the OSDs sent about their peers.
 */
final class MonMetrics {
  private MonMetrics() {}

  static void bind(
      MeterRegistry registry,
      Supplier<ClusterMap> map,
      BooleanSupplier leader,
      IntSupplier quorumSize) {
    Gauge.builder("tidestore.mon.leader", () -> leader.getAsBoolean() ? 1 : 0)
        .description("1 on the monitor that is the Raft leader, else 0")
        .register(registry);
    Gauge.builder("tidestore.mon.quorum.size", quorumSize::getAsInt)
        .description(
            "Monitors in quorum as the leader sees them (itself and the followers it heard from"
                + " recently); 0 on a monitor that is not the leader")
        .register(registry);
    Gauge.builder("tidestore.mon.map.epoch", () -> map.get().epoch())
        .description("Epoch of the cluster map this monitor has applied")
        .register(registry);
    Gauge.builder("tidestore.mon.osds", () -> map.get().osds().size())
        .description("OSDs in the map")
        .register(registry);
    Gauge.builder("tidestore.mon.osds.up", () -> map.get().numUp())
        .description("OSDs marked up in the map")
        .register(registry);
    Gauge.builder("tidestore.mon.osds.in", () -> map.get().numIn())
        .description("OSDs marked in in the map")
        .register(registry);
    Gauge.builder("tidestore.mon.pools", () -> map.get().pools().size())
        .description("Pools in the map")
        .register(registry);
  }

  /** Failure reports received, by kind: failed (renewals included) and alive again. */
  static void bindReports(MeterRegistry registry, FailureReports reports) {
    String description =
        "Failure reports from OSDs about heartbeat peers that stopped answering (each renewal"
            + " counts), and alive reports taking them back";
    FunctionCounter.builder(
            "tidestore.mon.osd.failure.reports", reports, FailureReports::failedReceived)
        .description(description)
        .tag("kind", "failed")
        .register(registry);
    FunctionCounter.builder(
            "tidestore.mon.osd.failure.reports", reports, FailureReports::aliveReceived)
        .description(description)
        .tag("kind", "alive")
        .register(registry);
  }
}
