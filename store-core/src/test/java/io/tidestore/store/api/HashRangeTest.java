package io.tidestore.store.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The placement hash, its order, and PG ranges: a PG's range holds exactly the hashes that Ceph's
 * {@code stable_mod} folds to it (written out here independently), and a pool's ranges tile the
 * hash order.
 */
class HashRangeTest {
  private static final int[] PG_NUMS = {1, 2, 3, 5, 8, 12, 31, 64, 100, 128, 129, 1000, 4099};

  /** Ceph's {@code ceph_stable_mod(x, b, bmask)} with its pg_num_mask, as the cluster folds. */
  private static int stableMod(int hash, int pgNum) {
    int bits = 32 - Integer.numberOfLeadingZeros(pgNum - 1);
    int mask = (int) ((1L << bits) - 1);
    return (hash & mask) < pgNum ? hash & mask : hash & (mask >>> 1);
  }

  /** Fixed forever: the values docs/cluster.md gives. */
  @Test
  void theHashIsCrc32cOfTheUtf8Name() {
    assertEquals(0xe3069283, PlacementHash.of("123456789"));
    assertEquals(0xcfc4ae1d, PlacementHash.of("foo"));
    assertEquals(0xcfc4ae1d, new ObjectKey(9, "foo").placementHash(), "the pool is not hashed");
    assertEquals(0x80000000L, PlacementHash.reversed(1));
    assertEquals(0xb8000000L, PlacementHash.reversed(0x1d));
  }

  @Test
  void aPgsRangeHoldsExactlyTheHashesStableModFoldsToIt() {
    Random r = new Random(17);
    for (int pgNum : PG_NUMS) {
      for (int i = 0; i < 4000; i++) {
        int hash = r.nextInt();
        int seed = stableMod(hash, pgNum);
        assertTrue(HashRange.ofPg(pgNum, seed).contains(hash), pgNum + "/" + seed + ": " + hash);
        int other = (seed + 1 + r.nextInt(Math.max(1, pgNum - 1))) % pgNum;
        if (other != seed) {
          assertFalse(HashRange.ofPg(pgNum, other).contains(hash), pgNum + "/" + other);
        }
      }
    }
  }

  @Test
  void aPoolsRangesTileTheHashOrder() {
    for (int pgNum : PG_NUMS) {
      List<HashRange> ranges = new ArrayList<>();
      for (int seed = 0; seed < pgNum; seed++) {
        ranges.add(HashRange.ofPg(pgNum, seed));
      }
      ranges.sort(Comparator.comparingLong(HashRange::start));
      long next = 0;
      for (HashRange range : ranges) {
        assertEquals(next, range.start(), "pg_num " + pgNum + ": a gap or an overlap");
        assertFalse(range.isEmpty());
        next = range.end();
      }
      assertEquals(HashRange.SPACE, next, "pg_num " + pgNum);
    }
    assertEquals(HashRange.ALL, HashRange.ofPg(1, 0));
  }

  /**
   * Growing pg_num by one splits one PG, as Ceph's stable_mod does: the new PG {@code pgNum} takes
   * the upper half of its parent's range ({@code pgNum} less its highest bit); no other range
   * moves.
   */
  @Test
  void growingPgNumCutsOneRangeInTwo() {
    for (int pgNum = 1; pgNum <= 300; pgNum++) {
      int parent = pgNum - Integer.highestOneBit(pgNum);
      HashRange whole = HashRange.ofPg(pgNum, parent);
      HashRange low = HashRange.ofPg(pgNum + 1, parent);
      HashRange high = HashRange.ofPg(pgNum + 1, pgNum);
      assertEquals(whole.start(), low.start(), "pg_num " + pgNum);
      assertEquals(low.end(), high.start(), "pg_num " + pgNum);
      assertEquals(whole.end(), high.end(), "pg_num " + pgNum);
      assertEquals(low.end() - low.start(), high.end() - high.start(), "not halves");
      for (int seed = 0; seed < pgNum; seed++) {
        if (seed != parent) {
          assertEquals(HashRange.ofPg(pgNum, seed), HashRange.ofPg(pgNum + 1, seed));
        }
      }
    }
  }

  /** pg_num 12 (mask 15): seeds 0-3 and 8-11 use 4 bits, seeds 4-7 took 12-15 too and use 3. */
  @Test
  void splitBitsAsCeph() {
    assertEquals(4, HashRange.splitBits(12, 0));
    assertEquals(3, HashRange.splitBits(12, 4));
    assertEquals(3, HashRange.splitBits(12, 7));
    assertEquals(4, HashRange.splitBits(12, 11));
    assertEquals(3, HashRange.splitBits(8, 5));
    assertEquals(0, HashRange.splitBits(1, 0));
    assertEquals(new HashRange(0x20000000L, 0x40000000L), HashRange.ofPg(12, 4));
    assertEquals(new HashRange(0xd0000000L, 0xe0000000L), HashRange.ofPg(12, 11));
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new HashRange(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> new HashRange(5, 4));
    assertThrows(IllegalArgumentException.class, () -> new HashRange(0, HashRange.SPACE + 1));
    assertThrows(IllegalArgumentException.class, () -> HashRange.ofPg(0, 0));
    assertThrows(IllegalArgumentException.class, () -> HashRange.ofPg(12, 12));
    assertThrows(IllegalArgumentException.class, () -> HashRange.ofPg(12, -1));
    assertTrue(new HashRange(7, 7).isEmpty());
  }
}
