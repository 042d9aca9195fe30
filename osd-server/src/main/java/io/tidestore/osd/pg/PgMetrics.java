package io.tidestore.osd.pg;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cluster OSD's PG metrics (Prometheus names in docs/cluster.md): its PGs by state, the objects
 * and bytes its recovery moved (a rate in Prometheus gives recovery bytes/s), and the replication
 * latency of its primary ops. The recovery totals also go to the monitors with each heartbeat,
 * which turn them into the rates {@code tidestore status} prints.
 */
public final class PgMetrics {
  private final LongAdder recoveredObjects = new LongAdder();
  private final LongAdder recoveredBytes = new LongAdder();
  private final LongAdder strayRemovals = new LongAdder();
  private final Timer replication;
  private final MultiGauge byState;

  public PgMetrics(MeterRegistry registry) {
    FunctionCounter.builder("tidestore.osd.recovery.objects", recoveredObjects, LongAdder::sum)
        .description("Objects this OSD pushed to or pulled from its PGs' members in recovery")
        .register(registry);
    FunctionCounter.builder("tidestore.osd.recovery.bytes", recoveredBytes, LongAdder::sum)
        .description("Bytes of the objects this OSD moved in recovery")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder("tidestore.osd.stray.pgs.removed", strayRemovals, LongAdder::sum)
        .description(
            "PG copies this OSD removed after leaving their acting set, once each PG's primary"
                + " had it active+clean without them")
        .register(registry);
    replication =
        Timer.builder("tidestore.osd.replication.latency")
            .description(
                "From a primary ordering a client's change to every acting member having it"
                    + " durable")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofMinutes(1))
            .register(registry);
    byState =
        MultiGauge.builder("tidestore.osd.pgs")
            .description("PGs loaded on this OSD by state (replica: it is not their primary)")
            .register(registry);
  }

  void recovered(long bytes) {
    recoveredBytes.add(bytes);
  }

  void recoveredObject() {
    recoveredObjects.increment();
  }

  void strayRemoved() {
    strayRemovals.increment();
  }

  long recoveredObjects() {
    return recoveredObjects.sum();
  }

  long recoveredBytes() {
    return recoveredBytes.sum();
  }

  /** One primary op: ordered at {@code startNanos}, durable on every member now. */
  void replicated(long startNanos) {
    replication.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  /** The newest count of PGs by state (states no PG has any more disappear). */
  void states(Map<String, Integer> counts) {
    List<MultiGauge.Row<?>> rows = new ArrayList<>(counts.size());
    counts.forEach((state, n) -> rows.add(MultiGauge.Row.of(Tags.of("state", state), n)));
    byState.register(rows, true);
  }
}
