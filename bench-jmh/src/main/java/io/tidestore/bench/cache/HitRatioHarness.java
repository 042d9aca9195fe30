package io.tidestore.bench.cache;

import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.sim.BlockGenerator;
import io.tidestore.store.cache.sim.TraceReplay;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Hit ratios of LRU, 2Q (textbook), 2Q with SeaStore's continuation rule and Caffeine on the seed
 * workloads' distributions at several capacities. Counts, not timings, so no JMH: run {@link #main}
 * from benchmarks.jar (see docs/benchmarks.md for the command).
 *
 * <p>Arguments (all optional): BLOCKS ACCESSES SEED.
 */
public final class HitRatioHarness {
  /** The seed workloads' distributions (DESIGN.md) plus the scan mix 2Q was designed for. */
  static final String[] DISTRIBUTIONS = {
    "zipf:0.768780", "zoned:60/10:30/20:8/30:2/40", "normal:0.6", "scan-mix", "scan-rescan"
  };

  /** Capacities as percentages of the trace's block range. */
  static final double[] CAPACITY_PERCENT = {1, 5, 10, 15, 25};

  /** One row: a distribution at one capacity. */
  record Row(
      String distribution,
      long capacity,
      double lru,
      double twoQ,
      double twoQSeq,
      double caffeine) {}

  private HitRatioHarness() {}

  static Row measure(String distribution, long[] trace, long capacity) {
    double lru = new TraceReplay(PolicyConfig.lru(), capacity).replay(trace).hitRatio();
    double twoQ = new TraceReplay(PolicyConfig.twoQ(false), capacity).replay(trace).hitRatio();
    double twoQSeq = new TraceReplay(PolicyConfig.twoQ(true), capacity).replay(trace).hitRatio();
    double caffeine = new CaffeineReplay(capacity).replay(trace).hitRatio();
    return new Row(distribution, capacity, lru, twoQ, twoQSeq, caffeine);
  }

  public static void main(String[] args) {
    long blocks = args.length > 0 ? Long.parseLong(args[0]) : 262_144; // 1 GiB of 4 KiB blocks
    int accesses = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    PrintStream out = System.out;
    out.printf(
        Locale.ROOT,
        "blocks=%d accesses=%d seed=%d (hit ratio; 2Q kin=0.25 kout=0.5)%n%n",
        blocks,
        accesses,
        seed);
    out.println("| trace | capacity (blocks, percent of range) | LRU | 2Q | 2Q+seq | Caffeine |");
    out.println("| --- | --- | --- | --- | --- | --- |");
    for (String d : DISTRIBUTIONS) {
      long[] trace = BlockGenerator.generate(d, blocks, accesses, seed);
      for (double pct : CAPACITY_PERCENT) {
        long capacity = (long) (blocks * pct / 100);
        Row r = measure(d, trace, capacity);
        out.printf(
            Locale.ROOT,
            "| %s | %d (%.0f%%) | %.4f | %.4f | %.4f | %.4f |%n",
            d,
            capacity,
            pct,
            r.lru(),
            r.twoQ(),
            r.twoQSeq(),
            r.caffeine());
      }
    }
  }
}
