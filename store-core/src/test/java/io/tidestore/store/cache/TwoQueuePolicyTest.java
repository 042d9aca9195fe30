package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * 2Q's queue transitions step by step, against expectations worked out by hand from the rules of
 * Johnson and Shasha (VLDB 1994, full version): capacity 4, Kin = floor(0.25 x 4) = 1, Kout =
 * floor(0.5 x 4) = 2.
 */
class TwoQueuePolicyTest {
  private final List<Long> evicted = new ArrayList<>();
  private final EvictionHandler recorder =
      new EvictionHandler() {
        @Override
        public boolean isPinned(long key) {
          return false;
        }

        @Override
        public void evicted(long key, int weightBlocks) {
          evicted.add(key);
        }
      };

  private TwoQueuePolicy textbook(long capacity) {
    return new TwoQueuePolicy(capacity, 0.25, 0.5, false, recorder);
  }

  private static void assertQueues(TwoQueuePolicy p, long a1in, long am, long a1out) {
    assertEquals(a1in, p.a1inBlocks(), "|A1in| in " + p);
    assertEquals(am, p.amBlocks(), "|Am| in " + p);
    assertEquals(a1out, p.a1outBlocks(), "|A1out| in " + p);
  }

  @Test
  void kinAndKoutAreFloorsOfTheCapacity() {
    TwoQueuePolicy p = new TwoQueuePolicy(10, 0.25, 0.5, false, recorder);
    assertEquals(2, p.kin()); // floor(2.5)
    assertEquals(5, p.kout());
    TwoQueuePolicy q = new TwoQueuePolicy(7, 0.3, 0.45, false, recorder);
    assertEquals(2, q.kin()); // floor(2.1)
    assertEquals(3, q.kout()); // floor(3.15)
  }

  @Test
  void transitionsStepByStep() {
    TwoQueuePolicy p = textbook(4);
    assertEquals(1, p.kin());
    assertEquals(2, p.kout());

    // 1..4: misses fill A1in; no reclaim while |A1in| + |Am| < 4.
    for (long k = 1; k <= 4; k++) {
      assertFalse(p.access(k));
    }
    assertQueues(p, 4, 0, 0);
    assertTrue(evicted.isEmpty());

    // 5: miss; full and |A1in| = 4 > Kin: A1in's tail 1 goes to A1out.
    assertFalse(p.access(5));
    assertEquals(List.of(1L), evicted);
    assertEquals("A1out", p.queueOf(1));
    assertQueues(p, 4, 0, 1);

    // 1: in A1out -> miss; remove 1 from A1out, reclaim (A1in's tail 2 -> A1out), 1 to Am.
    assertFalse(p.access(1));
    assertEquals("Am", p.queueOf(1));
    assertEquals("A1out", p.queueOf(2));
    assertQueues(p, 3, 1, 1);

    // 3: in A1in -> hit, no move; 1: in Am -> hit.
    assertTrue(p.access(3));
    assertTrue(p.access(1));
    assertQueues(p, 3, 1, 1);

    // 6: miss; A1in's tail is 3 (the hit did not move it): 3 -> A1out.
    assertFalse(p.access(6));
    assertEquals("A1out", p.queueOf(3));
    assertQueues(p, 3, 1, 2);

    // 7: miss; 4 -> A1out's head, A1out beyond Kout = 2 drops its tail 2 entirely.
    assertFalse(p.access(7));
    assertEquals("A1out", p.queueOf(4));
    assertNull(p.queueOf(2));
    assertQueues(p, 3, 1, 2);

    // 2: forgotten -> plain miss into A1in; 5 -> A1out, 3 dropped.
    assertFalse(p.access(2));
    assertEquals("A1in", p.queueOf(2));
    assertNull(p.queueOf(3));
    assertEquals("A1out", p.queueOf(5));

    // 4 and 5: ghosts -> misses into Am; each reclaim moves A1in's tail (6, then 7) out.
    assertFalse(p.access(4));
    assertFalse(p.access(5));
    assertEquals("Am", p.queueOf(4));
    assertEquals("Am", p.queueOf(5));
    assertEquals("A1out", p.queueOf(7));
    assertEquals("A1out", p.queueOf(6));
    assertQueues(p, 1, 3, 2);

    // 8: miss; |A1in| = 1 is not > Kin and Am is not empty: Am's LRU tail 1 is dropped.
    evicted.clear();
    assertFalse(p.access(8));
    assertEquals(List.of(1L), evicted);
    assertNull(p.queueOf(1), "Am's victims are not remembered");
    assertQueues(p, 2, 2, 2);

    // 1: a plain miss again, into A1in; |A1in| = 2 > Kin: 2 -> A1out, 6 dropped.
    assertFalse(p.access(1));
    assertEquals("A1in", p.queueOf(1));
    assertEquals("A1out", p.queueOf(2));
    assertNull(p.queueOf(6));
    assertQueues(p, 2, 2, 2);
  }

  @Test
  void amIsLruOrdered() {
    TwoQueuePolicy p = new TwoQueuePolicy(4, 0.25, 1.0, false, recorder);
    // Get 1, 2, 3 into Am through A1out.
    for (long k = 1; k <= 7; k++) {
      p.access(k); // A1in holds 4 of them; 1, 2, 3 end in A1out
    }
    p.access(1);
    p.access(2);
    p.access(3);
    assertEquals("Am", p.queueOf(1));
    assertEquals("Am", p.queueOf(3));
    p.access(1); // 1 becomes Am's MRU; 2 is now Am's LRU tail
    // Drain A1in down to Kin so reclaim turns to Am.
    while (p.a1inBlocks() > p.kin()) {
      p.evictOne();
    }
    evicted.clear();
    assertTrue(p.evictOne());
    assertEquals(List.of(2L), evicted);
  }

  @Test
  void sequentialContinuationReentersA1in() {
    for (boolean seq : new boolean[] {false, true}) {
      TwoQueuePolicy p = new TwoQueuePolicy(4, 0.25, 0.5, seq, recorder);
      for (long k = 1; k <= 6; k++) {
        p.access(k); // 1 and 2 end in A1out
      }
      assertTrue(p.isGhost(1));
      assertTrue(p.isGhost(2));
      // 1: a ghost, but the previous access (6) ended at 7: not a continuation -> Am either way.
      p.access(1);
      assertEquals("Am", p.queueOf(1));
      // 2 starts where 1 ended: a sequential continuation.
      assertTrue(p.isGhost(2));
      p.access(2);
      assertEquals(seq ? "A1in" : "Am", p.queueOf(2), "seq=" + seq);
      assertEquals(seq ? 1 : 0, p.continuations());
    }
  }

  @Test
  void weightedExtentsCountBlocks() {
    TwoQueuePolicy p = new TwoQueuePolicy(16, 0.25, 0.5, false, recorder);
    assertTrue(p.admit(100, 8));
    assertTrue(p.admit(200, 8));
    assertEquals(16, p.residentBlocks());
    assertTrue(p.admit(300, 4)); // reclaims 100 (A1in tail, 16 > Kin = 4)
    assertEquals(List.of(100L), evicted);
    assertEquals(12, p.residentBlocks());
    assertEquals(8, p.a1outBlocks());
    assertFalse(p.admit(400, 17), "heavier than the whole capacity");
  }
}
