package io.tidestore.mon;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.cluster.map.ClusterMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/** The monitor's gauges (docs/metrics.md "Monitor"): quorum state, map epoch, OSDs up and in. */
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
}
