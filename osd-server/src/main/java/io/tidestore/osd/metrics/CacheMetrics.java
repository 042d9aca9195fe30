package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.store.cache.CacheStats;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyKind;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The extent caches' counters and sizes per shard (tag {@code shard}); the memory budget is {@link
 * MemoryMetrics}'. {@link CacheStats} getters are safe to read from the metrics thread.
 *
 * <p>{@code tidestore.cache.policy{shard, policy}} is 1 for the policy a shard's cache runs and 0
 * for the others (an info metric, as Prometheus names them): the policy can be switched at run
 * time, so a hit ratio per policy is the hit and miss rates joined on it ({@code ... * on
 * (instance, shard) group_left (policy) (tidestore_cache_policy == 1)}), which the dashboard does.
 */
public final class CacheMetrics {
  private CacheMetrics() {}

  /** Registers the meters of {@code caches} (indexed by shard). */
  public static void bind(MeterRegistry registry, List<ExtentCache> caches) {
    for (int shard = 0; shard < caches.size(); shard++) {
      CacheStats stats = caches.get(shard).stats();
      String tag = Integer.toString(shard);
      counter(
          registry,
          "tidestore.cache.hits",
          "Block lookups served from the cache",
          stats,
          tag,
          CacheStats::hits);
      counter(
          registry,
          "tidestore.cache.misses",
          "Block lookups that went to disk",
          stats,
          tag,
          CacheStats::misses);
      counter(
          registry,
          "tidestore.cache.evictions",
          "Extents evicted by the policy",
          stats,
          tag,
          CacheStats::evictions);
      counter(
          registry,
          "tidestore.cache.invalidations",
          "Extents dropped by overwrite, truncate or remove",
          stats,
          tag,
          CacheStats::invalidations);
      counter(
          registry,
          "tidestore.cache.policy.switches",
          "Runtime policy switches",
          stats,
          tag,
          CacheStats::policySwitches);
      gauge(
          registry,
          "tidestore.cache.cached",
          "Bytes of cached extents",
          stats,
          tag,
          CacheStats::cachedBytes);
      gauge(
          registry,
          "tidestore.cache.capacity",
          "Cache capacity",
          stats,
          tag,
          CacheStats::capacityBytes);
      gauge(
          registry,
          "tidestore.cache.a1in",
          "2Q A1in (FIFO) bytes",
          stats,
          tag,
          CacheStats::a1inBytes);
      gauge(
          registry,
          "tidestore.cache.a1out",
          "2Q A1out (ghost keys) bytes they stood for",
          stats,
          tag,
          CacheStats::a1outBytes);
      gauge(
          registry,
          "tidestore.cache.am",
          "2Q Am (LRU) bytes, or all of LRU's",
          stats,
          tag,
          CacheStats::amBytes);
      for (PolicyKind kind : PolicyKind.values()) {
        String name = kind.configName();
        Gauge.builder("tidestore.cache.policy", stats, st -> name.equals(st.policy()) ? 1 : 0)
            .description("1 for the replacement policy the shard's cache runs, 0 for the others")
            .tags("shard", tag, "policy", name)
            .register(registry);
      }
    }
  }

  private static void counter(
      MeterRegistry registry,
      String name,
      String description,
      CacheStats stats,
      String shard,
      ToDoubleFunction<CacheStats> value) {
    FunctionCounter.builder(name, stats, value)
        .description(description)
        .tags("shard", shard)
        .register(registry);
  }

  private static void gauge(
      MeterRegistry registry,
      String name,
      String description,
      CacheStats stats,
      String shard,
      ToDoubleFunction<CacheStats> value) {
    Gauge.builder(name, stats, value)
        .baseUnit("bytes")
        .description(description)
        .tags("shard", shard)
        .register(registry);
  }
}
