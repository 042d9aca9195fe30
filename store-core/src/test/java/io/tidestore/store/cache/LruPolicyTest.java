package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LruPolicyTest {
  @Test
  void evictsLeastRecentlyUsed() {
    List<Long> evicted = new ArrayList<>();
    LruPolicy p =
        new LruPolicy(
            3,
            new EvictionHandler() {
              @Override
              public boolean isPinned(long key) {
                return false;
              }

              @Override
              public void evicted(long key, int weightBlocks) {
                evicted.add(key);
              }
            });
    assertFalse(p.access(1));
    assertFalse(p.access(2));
    assertFalse(p.access(3));
    assertTrue(p.access(1)); // 2 is now the LRU
    assertFalse(p.access(4));
    assertEquals(List.of(2L), evicted);
    assertTrue(p.access(3));
    assertFalse(p.access(5)); // 1 is the LRU now
    assertEquals(List.of(2L, 1L), evicted);
    assertEquals(3, p.residentBlocks());
  }
}
