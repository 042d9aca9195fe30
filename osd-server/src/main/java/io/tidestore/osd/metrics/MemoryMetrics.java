package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryUse;
import java.util.Locale;

/**
 * The memory budget by use: {@code tidestore.memory.used{use=cache|io_buffers|index}} (reserved
 * from {@code --memory-limit}, whose size is {@code tidestore.memory.limit}) and {@code
 * tidestore.memory.used{use=netty}} (Netty's direct memory, outside the budget).
 */
public final class MemoryMetrics {
  private MemoryMetrics() {}

  public static void bind(MeterRegistry registry, MemoryBudget budget) {
    for (MemoryUse use : MemoryUse.values()) {
      Gauge.builder("tidestore.memory.used", budget, b -> b.reservedBytes(use))
          .baseUnit("bytes")
          .description("Memory in use: reserved from --memory-limit, or Netty's (use=netty)")
          .tag("use", tagOf(use))
          .register(registry);
    }
    Gauge.builder("tidestore.memory.used", NettyMemory::usedDirectBytes)
        .baseUnit("bytes")
        .description("Memory in use: reserved from --memory-limit, or Netty's (use=netty)")
        .tag("use", "netty")
        .register(registry);
    Gauge.builder("tidestore.memory.limit", budget, MemoryBudget::limitBytes)
        .baseUnit("bytes")
        .description("Off-heap memory the daemon may reserve (--memory-limit)")
        .register(registry);
    Gauge.builder("tidestore.memory.reserved", budget, MemoryBudget::reservedBytes)
        .baseUnit("bytes")
        .description("Off-heap memory reserved now, all uses")
        .register(registry);
    Gauge.builder("process.resident.memory", ResidentMemory::bytes)
        .baseUnit("bytes")
        .description("Resident set size of the daemon's process (VmRSS), or NaN where unknown")
        .register(registry);
  }

  /**
   * The in-flight frame budget ({@code --max-inflight-frame-bytes}, outside {@code
   * --memory-limit}): {@code tidestore.inbound.frames.reserved}, {@code
   * tidestore.inbound.frames.limit} and {@code tidestore.inbound.frames.waiting} (connections whose
   * reading is paused until the budget has room).
   */
  public static void bindInboundFrames(MeterRegistry registry, InboundBudget frames) {
    Gauge.builder("tidestore.inbound.frames.reserved", frames, InboundBudget::reservedBytes)
        .baseUnit("bytes")
        .description("Bytes reserved for partly received large requests (object protocol, NBD)")
        .register(registry);
    Gauge.builder("tidestore.inbound.frames.limit", frames, InboundBudget::limitBytes)
        .baseUnit("bytes")
        .description("Bytes partly received requests may hold (--max-inflight-frame-bytes)")
        .register(registry);
    Gauge.builder("tidestore.inbound.frames.waiting", frames, InboundBudget::waitingConnections)
        .description("Connections not read until the in-flight frame budget has room")
        .register(registry);
  }

  /** The tag and JSON name of a use: "cache", "io_buffers", "index". */
  public static String tagOf(MemoryUse use) {
    return use.name().toLowerCase(Locale.ROOT);
  }
}
