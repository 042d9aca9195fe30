package io.tidestore.cluster.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.store.api.HashRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The store lists a PG by {@link HashRange#ofPg}: for random names and pools of several pg_num
 * (powers of two and not), the objects in a PG's range are exactly those {@link ObjectHash#pg}
 * places in that PG.
 */
class PgHashRangeTest {
  private static final int[] PG_NUMS = {1, 2, 3, 6, 12, 32, 64, 100, 129, 1000, 65536};

  private static String randomName(Random r) {
    StringBuilder name = new StringBuilder(r.nextBoolean() ? "rbd_data." : "");
    for (int i = 1 + r.nextInt(24); i > 0; i--) {
      // ASCII mostly, some Latin-1, Greek and CJK: the hash is over the UTF-8 bytes.
      int kind = r.nextInt(10);
      name.appendCodePoint(
          kind < 7
              ? 'a' + r.nextInt(26)
              : kind == 7 ? 0xe0 + r.nextInt(32) : kind == 8 ? 0x3b1 + r.nextInt(24) : 0x4e00);
    }
    return name.toString();
  }

  @Test
  void aPgsRangeHoldsExactlyItsObjects() {
    Random r = new Random(2026);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      names.add(randomName(r));
    }
    for (int pgNum : PG_NUMS) {
      var pool = TestMaps.pool(3, 3, 2, pgNum, FailureDomain.OSD);
      // Seeds to look at: every seed of small pools, for large ones the seeds the names fall in
      // and their neighbours (the seeds most likely to be confused with them).
      List<Integer> seeds = new ArrayList<>();
      if (pgNum <= 129) {
        for (int s = 0; s < pgNum; s++) {
          seeds.add(s);
        }
      } else {
        for (int i = 0; i < 40; i++) {
          int s = ObjectHash.pg(pool, names.get(i)).seed();
          seeds.addAll(List.of(s, (s + 1) % pgNum, (s + pgNum - 1) % pgNum, s ^ (pgNum >>> 1)));
        }
      }
      for (int seed : seeds) {
        if (seed >= pgNum) {
          continue;
        }
        HashRange range = HashRange.ofPg(pgNum, seed);
        for (String name : names) {
          boolean inPg = ObjectHash.pg(pool, name).equals(new PgId(3, seed));
          assertEquals(
              inPg,
              range.contains(ObjectHash.hash(name)),
              "pg_num " + pgNum + " seed " + seed + " name " + name);
        }
      }
    }
  }
}
