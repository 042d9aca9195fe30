package io.tidestore.osd.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class RecordedHistogramTest {
  private static final double[] BOUNDS = {10, 100, 1000, Double.POSITIVE_INFINITY};

  @Test
  void writersOnTheirOwnThreadsAreMergedWhileAReaderScrapes() throws Exception {
    RecordedHistogram h = new RecordedHistogram(2, 1_000_000);
    int perWriter = 200_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread[] writers = new Thread[2];
    for (int w = 0; w < 2; w++) {
      int writer = w;
      writers[w] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < perWriter; i++) {
                      // writer 0: all 5; writer 1: all 500.
                      h.record(writer, writer == 0 ? 5 : 500);
                    }
                  });
    }
    start.countDown();
    long lastCount = 0;
    while (writers[0].isAlive() || writers[1].isAlive()) {
      RecordedHistogram.Snapshot s = h.snapshot(BOUNDS, 1);
      assertTrue(s.count() >= lastCount, "counts only grow");
      lastCount = s.count();
    }
    for (Thread t : writers) {
      t.join();
    }
    RecordedHistogram.Snapshot s = h.snapshot(BOUNDS, 1);
    assertEquals(2L * perWriter, s.count());
    assertEquals(perWriter * 5.0 + perWriter * 500.0, s.sum());
    assertArrayEquals(
        new long[] {perWriter, perWriter, 2L * perWriter, 2L * perWriter}, s.cumulativeCounts());
    assertEquals(5, s.p50(), 0.05);
    assertEquals(500, s.p99(), 5);
  }

  @Test
  void valuesAboveTheRangeCountAsTheHighestAndScaleApplies() {
    RecordedHistogram h = new RecordedHistogram(1, 1_000_000_000L);
    h.record(0, 5_000_000_000L); // 5 s, above the 1 s range
    h.record(0, 2_000_000L); // 2 ms
    h.record(0, -7); // clock oddities never throw
    RecordedHistogram.Snapshot s =
        h.snapshot(new double[] {0.001, 0.01, Double.POSITIVE_INFINITY}, 1e-9);
    assertEquals(3, s.count());
    assertArrayEquals(new long[] {1, 2, 3}, s.cumulativeCounts());
    assertEquals(1.002, s.sum(), 1e-9);
  }
}
