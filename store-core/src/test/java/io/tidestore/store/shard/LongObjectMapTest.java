package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The primitive-keyed map behaves as a HashMap through growth and backward-shift removals. */
class LongObjectMapTest {
  @Test
  void matchesAHashMapUnderRandomPutsGetsAndRemoves() {
    LongObjectMap<String> map = new LongObjectMap<>();
    Map<Long, String> model = new HashMap<>();
    Random random = new Random(7);
    for (int step = 0; step < 200_000; step++) {
      // Few distinct keys keep probe chains long and removals frequent; some are huge.
      long key = random.nextInt(4) == 0 ? random.nextLong() | 1 : 1 + random.nextInt(3000);
      switch (random.nextInt(3)) {
        case 0 -> assertEquals(model.put(key, "v" + step), map.put(key, "v" + step));
        case 1 -> assertEquals(model.remove(key), map.remove(key));
        default -> assertEquals(model.get(key), map.get(key));
      }
      assertEquals(model.size(), map.size());
    }
    for (var e : model.entrySet()) {
      assertEquals(e.getValue(), map.get(e.getKey()));
    }
    map.clear();
    assertEquals(0, map.size());
    assertEquals(null, map.get(model.keySet().iterator().next()));
  }

  @Test
  void keyZeroAndNullValuesAreRefused() {
    LongObjectMap<String> map = new LongObjectMap<>();
    assertThrows(IllegalArgumentException.class, () -> map.put(0, "x"));
    assertThrows(IllegalArgumentException.class, () -> map.put(1, null));
  }
}
