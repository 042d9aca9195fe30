package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BuddyAllocatorTest {
  @Test
  void orderRoundsUpToAPowerOfTwo() {
    assertEquals(0, BuddyAllocator.orderFor(1));
    assertEquals(1, BuddyAllocator.orderFor(2));
    assertEquals(2, BuddyAllocator.orderFor(3));
    assertEquals(4, BuddyAllocator.orderFor(16));
    assertEquals(10, BuddyAllocator.orderFor(1024));
    assertThrows(IllegalArgumentException.class, () -> BuddyAllocator.orderFor(1025));
    assertThrows(IllegalArgumentException.class, () -> BuddyAllocator.orderFor(0));
  }

  @Test
  void blocksAreAlignedAndDisjoint() {
    BuddyAllocator b = new BuddyAllocator(2048);
    Set<Integer> used = new HashSet<>();
    int[] orders = {0, 3, 1, 10, 0, 2, 4};
    for (int o : orders) {
      int p = b.allocate(o);
      assertNotEquals(BuddyAllocator.NONE, p);
      assertEquals(0, p % (1 << o), "naturally aligned");
      for (int i = 0; i < 1 << o; i++) {
        assertTrue(used.add(p + i), "page " + (p + i) + " handed out twice");
      }
    }
  }

  @Test
  void freeingEverythingCoalescesBackToWholeBlocks() {
    BuddyAllocator b = new BuddyAllocator(1024);
    List<Integer> pages = new ArrayList<>();
    int p;
    while ((p = b.allocate(0)) != BuddyAllocator.NONE) {
      pages.add(p);
    }
    assertEquals(1024, pages.size());
    assertEquals(BuddyAllocator.NONE, b.allocate(10));
    // Free in an interleaved order so merges happen out of address order.
    for (int i = 0; i < pages.size(); i += 2) {
      b.free(pages.get(i));
    }
    assertEquals(BuddyAllocator.NONE, b.allocate(1), "only isolated single pages are free");
    for (int i = 1; i < pages.size(); i += 2) {
      b.free(pages.get(i));
    }
    assertTrue(b.isFullyFree());
    assertEquals(0, b.allocate(10));
  }

  @Test
  void oddSizedRegionsUseEveryPage() {
    BuddyAllocator b = new BuddyAllocator(1000 + 3);
    int total = 0;
    while (b.allocate(0) != BuddyAllocator.NONE) {
      total++;
    }
    assertEquals(1003, total);
    assertThrows(IllegalStateException.class, () -> new BuddyAllocator(4).free(1));
  }
}
