package io.tidestore.store.io.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hand-off queue: FIFO, bounded, and nothing lost or repeated under contending producers. */
class BoundedMpscQueueTest {
  @Test
  void isFifoAndBoundedAtItsCapacityRoundedUpToAPowerOfTwo() {
    BoundedMpscQueue<Integer> queue = new BoundedMpscQueue<>(3);
    assertTrue(queue.isEmpty());
    assertNull(queue.poll());
    for (int i = 0; i < 4; i++) {
      assertTrue(queue.offer(i), "offer " + i);
    }
    assertFalse(queue.offer(4), "full at 4");
    assertFalse(queue.isEmpty());
    // Lap the ring a few times: each freed cell takes exactly one more element.
    for (int i = 0; i < 20; i++) {
      assertEquals(i, queue.poll());
      assertTrue(queue.offer(i + 4));
      assertFalse(queue.offer(-1));
    }
    for (int i = 20; i < 24; i++) {
      assertEquals(i, queue.poll());
    }
    assertTrue(queue.isEmpty());
    assertThrows(IllegalArgumentException.class, () -> new BoundedMpscQueue<>(0));
  }

  @Test
  void contendingProducersLoseAndRepeatNothingAndKeepTheirOwnOrder() throws Exception {
    int producers = 3;
    int perProducer = 50_000;
    BoundedMpscQueue<long[]> queue = new BoundedMpscQueue<>(64);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      long producer = p;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (long i = 0; i < perProducer; i++) {
                      long[] element = {producer, i};
                      while (!queue.offer(element)) {
                        Thread.onSpinWait();
                      }
                    }
                  }));
    }
    long[] next = new long[producers];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (long received = 0; received < (long) producers * perProducer; ) {
      long[] element = queue.poll();
      if (element == null) {
        assertTrue(System.nanoTime() - deadline < 0, "only " + received + " elements arrived");
        Thread.onSpinWait();
        continue;
      }
      int producer = (int) element[0];
      assertEquals(next[producer], element[1], "producer " + producer + "'s order");
      next[producer]++;
      received++;
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertNull(queue.poll(), "nothing beyond what was offered");
    for (int p = 0; p < producers; p++) {
      assertEquals(perProducer, next[p]);
    }
  }
}
