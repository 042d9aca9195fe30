package io.tidestore.cluster.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.FailureDomain;
import org.junit.jupiter.api.Test;

class ObjectHashTest {

  /** The hash is fixed forever: these values are in docs/cluster.md. */
  @Test
  void hashIsCrc32cOfUtf8() {
    assertEquals(0xe3069283, ObjectHash.hash("123456789"));
    assertEquals(0xcfc4ae1d, ObjectHash.hash("foo"));
  }

  @Test
  void stableModIsModForPowersOfTwoAndStaysBelowB() {
    for (int b = 1; b <= 300; b++) {
      int mask = ObjectHash.mask(b);
      for (int x = 0; x < 2048; x++) {
        int pg = ObjectHash.stableMod(x, b, mask);
        assertTrue(pg >= 0 && pg < b, "x=" + x + " b=" + b + " -> " + pg);
        if (Integer.bitCount(b) == 1) {
          assertEquals(x % b, pg);
        }
      }
    }
    assertEquals(0, ObjectHash.mask(1));
    assertEquals(0xffff, ObjectHash.mask(65536));
  }

  /** Ceph's values: stable_mod(x, 12, 15). */
  @Test
  void stableModFoldsAsCeph() {
    assertEquals(11, ObjectHash.stableMod(11, 12, 15));
    assertEquals(4, ObjectHash.stableMod(12, 12, 15));
    assertEquals(7, ObjectHash.stableMod(15, 12, 15));
    assertEquals(3, ObjectHash.stableMod(19, 12, 15));
  }

  /** Growing pg_num only splits: an object moves from PG s to a new PG, never to an old one. */
  @Test
  void growingPgNumSplitsPgs() {
    for (int from = 1; from <= 130; from++) {
      int to = from + 1;
      for (int i = 0; i < 3000; i++) {
        int h = ObjectHash.hash("obj-" + i);
        int before = ObjectHash.fold(h, from);
        int after = ObjectHash.fold(h, to);
        assertTrue(
            after == before || after == from, from + "->" + to + ": " + before + "/" + after);
      }
    }
  }

  @Test
  void pgOfAnObject() {
    var pool = TestMaps.pool(1, 3, 2, 64, FailureDomain.OSD);
    assertEquals(new PgId(1, 0xcfc4ae1d & 63), ObjectHash.pg(pool, "foo"));
    assertEquals(new PgId(1, 0xcfc4ae1d), ObjectHash.rawPg(pool, "foo"));
  }
}
