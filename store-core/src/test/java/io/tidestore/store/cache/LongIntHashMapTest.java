package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
