package io.tidestore.bench.cache;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.cache.sim.BlockGenerator;
import org.junit.jupiter.api.Test;

class HitRatioHarnessTest {
  @Test
  void twoQBeatsLruOnScanMixAtASmallSize() {
    long blocks = 20_000;
    long[] trace = BlockGenerator.generate("scan-mix", blocks, 300_000, 1);
    HitRatioHarness.Row r = HitRatioHarness.measure("scan-mix", trace, 3_000); // 15% of range
    assertTrue(r.twoQ() > r.lru() + 0.05, r.toString());
    assertTrue(r.twoQSeq() > r.lru() + 0.05, r.toString());
    assertTrue(r.caffeine() > 0 && r.caffeine() < 1, r.toString());
  }

  @Test
  void ratiosAreProperFractionsOnEveryDistribution() {
    for (String d : HitRatioHarness.DISTRIBUTIONS) {
      long[] trace = BlockGenerator.generate(d, 5_000, 50_000, 2);
      HitRatioHarness.Row r = HitRatioHarness.measure(d, trace, 500);
      for (double v : new double[] {r.lru(), r.twoQ(), r.twoQSeq(), r.caffeine()}) {
        assertTrue(v > 0 && v < 1, d + ": " + r);
      }
    }
  }
}
