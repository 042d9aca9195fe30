package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongIntHashMapTest {
  @Test
  void agreesWithHashMapUnderRandomChurn() {
    LongIntHashMap m = new LongIntHashMap(500);
    Map<Long, Integer> ref = new HashMap<>();
    SplittableRandom rnd = new SplittableRandom(11);
    for (int i = 0; i < 200_000; i++) {
      long k = rnd.nextInt(1000); // dense keys: long probe runs, many backward shifts
      if (rnd.nextBoolean() && ref.size() < 500) {
        assertEquals(ref.getOrDefault(k, -1), m.put(k, i));
        ref.put(k, i);
      } else {
        Integer old = ref.remove(k);
        assertEquals(old == null ? -1 : old, m.remove(k));
      }
      assertEquals(ref.size(), m.size());
    }
    for (long k = 0; k < 1000; k++) {
      assertEquals(ref.getOrDefault(k, -1), m.get(k));
    }
  }

  @Test
  void blocksOfOneGroupHaveConsecutiveHomeSlots() {
    LongIntHashMap m = new LongIntHashMap(1 << 16);
    long base = CacheKeys.key(12345, 64); // a 16-aligned block: the start of a 64 KiB read
    int first = m.homeSlot(base);
    int tableMask = (1 << 17) - 1; // the table: a power of two at least twice the entries
    for (int i = 1; i < 16; i++) {
      assertEquals((first + i) & tableMask, m.homeSlot(base + i), "block " + (64 + i));
    }
    // Different groups still spread: the next group's home is not simply the next slot.
    int next = m.homeSlot(base + 16);
    assertTrue(Math.floorMod(next - first, tableMask + 1) >= 16, "groups spread over the table");
  }

  @Test
  void agreesWithHashMapForRunsOfCacheKeys() {
    // Cache-shaped keys: runs of consecutive blocks of few objects fill whole groups, the densest
    // clustering the grouped hash produces; lookups, replaces and backward shifts must stay exact.
    LongIntHashMap m = new LongIntHashMap(4096);
    Map<Long, Integer> ref = new HashMap<>();
    SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      long start = CacheKeys.key(rnd.nextInt(8), rnd.nextInt(512));
      int run = 1 + rnd.nextInt(32);
      boolean insert = rnd.nextInt(3) > 0;
      for (int b = 0;
          b < run && CacheKeys.block(start) + b < CacheKeys.MAX_BLOCKS_PER_OBJECT;
          b++) {
        long k = start + b;
        if (insert && (ref.containsKey(k) || ref.size() < 4096)) {
          assertEquals(ref.getOrDefault(k, -1), m.put(k, i));
          ref.put(k, i);
        } else if (!insert) {
          Integer old = ref.remove(k);
          assertEquals(old == null ? -1 : old, m.remove(k));
        }
      }
      assertEquals(ref.size(), m.size());
    }
    for (Map.Entry<Long, Integer> e : ref.entrySet()) {
      assertEquals(e.getValue(), m.get(e.getKey()));
    }
    for (long k = 0; k < CacheKeys.key(8, 0); k += 7) {
      assertEquals(ref.getOrDefault(k, -1), m.get(k));
    }
  }

  @Test
  void rejectsNegativeKeysAndOverflow() {
    LongIntHashMap m = new LongIntHashMap(2);
    assertThrows(IllegalArgumentException.class, () -> m.put(-1, 0));
    assertEquals(LongIntHashMap.MISSING, m.get(-1), "the empty marker is never a hit");
    assertEquals(LongIntHashMap.MISSING, m.remove(-1));
    assertEquals(0, m.size());
    m.put(1, 1);
    m.put(2, 2);
    assertThrows(IllegalStateException.class, () -> m.put(3, 3));
  }
}
