package io.tidestore.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The index's off-heap arena: regions never overlap, come zeroed, and freed ones are reused. */
class IndexArenaTest {
  private record Region(long handle, int shift, long tag) {}

  @Test
  void sizeClassesArePowersOfTwoFromEightBytes() {
    assertEquals(3, IndexArena.shiftFor(0));
    assertEquals(3, IndexArena.shiftFor(8));
    assertEquals(4, IndexArena.shiftFor(9));
    assertEquals(17, IndexArena.shiftFor(16_384 * 8), "the largest object's block map");
    assertEquals(20, IndexArena.shiftFor(IndexArena.MAX_REGION_BYTES));
    assertThrows(
        IllegalArgumentException.class, () -> IndexArena.shiftFor(IndexArena.MAX_REGION_BYTES + 1));
  }

  @Test
  void regionsNeverOverlapAndComeZeroedThroughRandomAllocateAndFree() {
    try (IndexArena arena = new IndexArena()) {
      Random random = new Random(3);
      List<Region> live = new ArrayList<>();
      for (int step = 0; step < 50_000; step++) {
        if (live.isEmpty() || random.nextInt(3) > 0) {
          int shift = 3 + (random.nextInt(10) == 0 ? random.nextInt(18) : random.nextInt(6));
          long handle = arena.allocate(shift);
          long size = 1L << shift;
          for (long off = 0; off < size; off += 8) {
            assertEquals(0, arena.readLong(handle, off), "a new region is zeroed");
          }
          long tag = random.nextLong();
          // Tag the first and last word: an overlap with another live region overwrites one (an
          // 8-byte region's last word is its first, and holds the tag).
          arena.writeLong(handle, size - 8, ~tag);
          arena.writeLong(handle, 0, tag);
          live.add(new Region(handle, shift, tag));
        } else {
          Region r = live.remove(random.nextInt(live.size()));
          check(arena, r);
          arena.free(r.handle(), r.shift());
        }
      }
      for (Region r : live) {
        check(arena, r);
      }
    }
  }

  private static void check(IndexArena arena, Region r) {
    assertEquals(r.tag(), arena.readLong(r.handle(), 0));
    if (r.shift() > 3) {
      assertEquals(~r.tag(), arena.readLong(r.handle(), (1L << r.shift()) - 8));
    }
  }

  @Test
  void freedRegionsAreReusedBeforeTheArenaGrows() {
    try (IndexArena arena = new IndexArena()) {
      List<Long> handles = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        handles.add(arena.allocate(13)); // 8 KiB, a 2,048-block object's map
      }
      long grown = arena.nativeBytes();
      assertTrue(grown >= 1000L * 8192, "chunks hold every region: " + grown);
      for (int round = 0; round < 5; round++) {
        handles.forEach(h -> arena.free(h, 13));
        handles.replaceAll(h -> arena.allocate(13));
      }
      assertEquals(grown, arena.nativeBytes(), "freed regions were reused");
    }
  }

  @Test
  void copyMovesAPrefixBetweenRegions() {
    try (IndexArena arena = new IndexArena()) {
      long from = arena.allocate(6);
      long to = arena.allocate(7);
      for (int i = 0; i < 8; i++) {
        arena.writeLong(from, 8L * i, 100 + i);
      }
      arena.copy(from, to, 64);
      for (int i = 0; i < 16; i++) {
        assertEquals(i < 8 ? 100 + i : 0, arena.readLong(to, 8L * i));
      }
    }
  }
}
