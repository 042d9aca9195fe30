package io.tidestore.osd.metrics;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.osd.reactor.Reactors;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Latency and count of one family of ops (the object protocol's, or NBD's commands), per op type,
 * as a Prometheus histogram labelled {@code op}. An op's latency runs from the moment its request
 * was decoded on the connection's reactor (the handler's {@code channelRead}) to the moment its
 * reply was handed to the channel on that same reactor (written; the socket flush follows at once
 * or at the end of the read batch); errors count like successes. Each reactor records into its own
 * {@link RecordedHistogram} writer, so the op path neither allocates nor contends.
 */
public final class OpLatencies {
  /** Records nothing: for servers started without metrics (unit tests). */
  public static final OpLatencies NONE = new OpLatencies(new RecordedHistogram[256], Map.of());

  private final RecordedHistogram[] byCode;
  private final Map<EventExecutor, Integer> slots;

  private OpLatencies(RecordedHistogram[] byCode, Map<EventExecutor, Integer> slots) {
    this.byCode = byCode;
    this.slots = slots;
  }

  /**
   * Registers {@code name}, a histogram with one series per entry of {@code opNames} (indexed by op
   * code, null where an op is not measured), recorded by every reactor of {@code reactors}.
   */
  public static OpLatencies register(
      OsdMetrics metrics, String name, String help, Reactors reactors, String[] opNames) {
    Map<EventExecutor, Integer> slots = new IdentityHashMap<>();
    for (Reactor reactor : reactors.all()) {
      slots.put(reactor.loop(), reactor.index());
    }
    HistogramFamily family =
        metrics.histogram(new HistogramFamily(name, help, 1e-9, HistogramFamily.LATENCY_SECONDS));
    RecordedHistogram[] byCode = new RecordedHistogram[256];
    for (int code = 0; code < opNames.length; code++) {
      if (opNames[code] != null) {
        byCode[code] =
            family.add(
                new RecordedHistogram(reactors.size(), HistogramFamily.LATENCY_HIGHEST_NANOS),
                "op",
                opNames[code]);
      }
    }
    return new OpLatencies(byCode, Map.copyOf(slots));
  }

  /** The writer slot of {@code executor} (a reactor's loop), or -1 to record nothing. */
  public int slotOf(EventExecutor executor) {
    Integer slot = slots.get(executor);
    return slot == null ? -1 : slot;
  }

  /** Records one op; on the reactor thread whose {@link #slotOf slot} is {@code slot}. */
  public void record(int code, int slot, long nanos) {
    if (slot >= 0 && code >= 0 && code < byCode.length) {
      RecordedHistogram h = byCode[code];
      if (h != null) {
        h.record(slot, nanos);
      }
    }
  }
}
