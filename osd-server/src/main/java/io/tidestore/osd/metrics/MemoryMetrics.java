package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
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
  }

  /** The tag and JSON name of a use: "cache", "io_buffers", "index". */
  public static String tagOf(MemoryUse use) {
    return use.name().toLowerCase(Locale.ROOT);
  }
}
