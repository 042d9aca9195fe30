package io.tidestore.bench.cache;

import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.sim.BlockGenerator;
import io.tidestore.store.cache.sim.TraceReplay;
import java.util.BitSet;
import java.util.Locale;

/**
 * Where LRU and 2Q lose hits on {@code scan-mix}: misses on hot blocks split into first touches
 * (compulsory for both), repeats during warm-up, and the hit ratio of the trace's second half
 * (steady state). Explains the 25% row of the hit-ratio table (docs/benchmarks.md). Counts, not
 * timings, so a plain main.
 *
 * <p>Arguments (all optional): BLOCKS ACCESSES SEED.
 */
public final class ScanMixWarmup {
  private ScanMixWarmup() {}

  public static void main(String[] args) {
    long blocks = args.length > 0 ? Long.parseLong(args[0]) : 262_144;
    int accesses = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    long hot = blocks / 10; // ScanMixGenerator's hot set: the first tenth
    long[] trace = BlockGenerator.generate("scan-mix", blocks, accesses, seed);
    System.out.println(
        "| capacity | policy | hit ratio | hot misses: first touch | repeated | scan hits |"
            + " 2nd half hit ratio |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
    for (double pct : HitRatioHarness.CAPACITY_PERCENT) {
      long capacity = (long) (blocks * pct / 100);
      for (PolicyConfig policy :
          new PolicyConfig[] {PolicyConfig.lru(), PolicyConfig.twoQ(false)}) {
        TraceReplay replay = new TraceReplay(policy, capacity);
        BitSet touched = new BitSet();
        long firstTouch = 0;
        long repeated = 0;
        long scanHits = 0;
        long lateHits = 0;
        for (int i = 0; i < trace.length; i++) {
          long b = trace[i];
          boolean hit = replay.access(b);
          if (b < hot && !hit) {
            if (touched.get((int) b)) {
              repeated++;
            } else {
              firstTouch++;
            }
          } else if (b >= hot && hit) {
            scanHits++;
          }
          touched.set((int) Math.min(b, Integer.MAX_VALUE));
          if (hit && i >= trace.length / 2) {
            lateHits++;
          }
        }
        System.out.printf(
            Locale.ROOT,
            "| %d (%.0f%%) | %s | %.4f | %d | %d | %d | %.4f |%n",
            capacity,
            pct,
            policy.kind(),
            replay.hitRatio(),
            firstTouch,
            repeated,
            scanHits,
            (double) lateHits / (trace.length - trace.length / 2));
      }
    }
  }
}
