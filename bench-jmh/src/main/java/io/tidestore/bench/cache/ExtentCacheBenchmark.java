package io.tidestore.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tidestore.store.cache.CacheKeys;
import io.tidestore.store.cache.EvictionHandler;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.ReplacementPolicy;
import io.tidestore.store.memory.MemoryBudget;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Get and put throughput of the extent cache with 1M resident 4 KiB entries (4 GiB off-heap),
 * against Caffeine (W-TinyLFU, on-heap, same entry count) in the same run, plus the policies alone
 * (index + queues, no extent memory).
 *
 * <ul>
 *   <li>{@code get}: a lookup of a resident key, uniformly random (every call a hit).
 *   <li>{@code put}: an insert of a random key from a 4x larger range (mostly misses, so nearly
 *       every put evicts): extent cache allocate + publish (no data copy), Caffeine put, policy
 *       access.
 * </ul>
 *
 * Caffeine runs its maintenance on the caller's thread ({@code executor(Runnable::run)}), as the
 * cache runs on its shard's thread; its keys are pre-boxed so boxing is not charged to it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ExtentCacheBenchmark {
  static final int ENTRIES = 1 << 20;
  static final int MASK = ENTRIES - 1;

  @Param({"extent-lru", "extent-2q", "caffeine", "policy-lru", "policy-2q"})
  public String impl;

  private ExtentCache extentCache;
  private Cache<Long, MemorySegment> caffeine;
  private ReplacementPolicy policy;
  private final long[] getKeys = new long[ENTRIES];
  private final long[] putKeys = new long[ENTRIES];
  private final Long[] getBoxed = new Long[ENTRIES];
  private final Long[] putBoxed = new Long[ENTRIES];
  private int next;

  private static long key(long i) {
    return CacheKeys.key(
        i >>> CacheKeys.BLOCK_BITS, (int) (i & (CacheKeys.MAX_BLOCKS_PER_OBJECT - 1)));
  }

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(1);
    for (int i = 0; i < ENTRIES; i++) {
      getKeys[i] = key(rnd.nextInt(ENTRIES));
      putKeys[i] = key(rnd.nextInt(4 * ENTRIES));
      getBoxed[i] = getKeys[i];
      putBoxed[i] = putKeys[i];
    }
    MemorySegment value = MemorySegment.ofArray(new byte[CacheKeys.BLOCK_SIZE]);
    switch (impl) {
      case "extent-lru", "extent-2q" -> {
        long bytes = (long) ENTRIES * CacheKeys.BLOCK_SIZE;
        PolicyConfig config =
            impl.equals("extent-lru") ? PolicyConfig.lru() : PolicyConfig.twoQ(true);
        extentCache = ExtentCache.open("bench", bytes, config, new MemoryBudget(bytes));
        for (long i = 0; i < ENTRIES; i++) {
          long h = extentCache.allocate(i >>> CacheKeys.BLOCK_BITS, (int) (i & 16383), 1);
          extentCache.publish(h);
        }
      }
      case "caffeine" -> {
        caffeine = Caffeine.newBuilder().maximumSize(ENTRIES).executor(Runnable::run).build();
        for (long i = 0; i < ENTRIES; i++) {
          caffeine.put(key(i), value);
        }
        caffeine.cleanUp();
      }
      case "policy-lru", "policy-2q" -> {
        PolicyConfig config =
            impl.equals("policy-lru") ? PolicyConfig.lru() : PolicyConfig.twoQ(true);
        policy = config.create(ENTRIES, EvictionHandler.NONE);
        for (long i = 0; i < ENTRIES; i++) {
          policy.admit(key(i), 1);
        }
      }
      default -> throw new IllegalArgumentException("unknown impl " + impl);
    }
    caffeineValue = value;
  }

  private MemorySegment caffeineValue;

  @TearDown(Level.Trial)
  public void tearDown() {
    if (extentCache != null) {
      extentCache.close();
    }
  }

  @Benchmark
  public long get() {
    int i = next++ & MASK;
    return switch (impl) {
      case "extent-lru", "extent-2q" -> extentCache.lookupKey(getKeys[i]);
      case "caffeine" -> caffeine.getIfPresent(getBoxed[i]) == null ? 0 : 1;
      default -> policy.recordHit(getKeys[i]) ? 1 : 0;
    };
  }

  @Benchmark
  public long put() {
    int i = next++ & MASK;
    long k = putKeys[i];
    return switch (impl) {
      case "extent-lru", "extent-2q" ->
          extentCache.publish(extentCache.allocate(CacheKeys.objectId(k), CacheKeys.block(k), 1))
              ? 1
              : 0;
      case "caffeine" -> {
        caffeine.put(putBoxed[i], caffeineValue);
        yield 1;
      }
      default -> policy.access(k) ? 1 : 0;
    };
  }
}
