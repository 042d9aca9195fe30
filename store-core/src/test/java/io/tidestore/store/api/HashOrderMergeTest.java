package io.tidestore.store.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Merging shards' pages: paging a store through merged pages gives every key once, in hash order,
 * whatever the limit and however unevenly the keys are spread over the shards. The shards here are
 * sorted lists that page as {@link ShardStore#listHashRange} does; real shards are in
 * ListHashRangeTest.
 */
class HashOrderMergeTest {
  /** A shard's page: its first {@code limit} keys after {@code after}, next = the last if more. */
  private static ListPage shardPage(List<ObjectKey> sorted, ObjectKey after, int limit) {
    List<ObjectKey> rest =
        sorted.stream()
            .filter(k -> after == null || PlacementHash.ORDER.compare(k, after) > 0)
            .toList();
    if (rest.size() <= limit) {
      return new ListPage(rest, null);
    }
    return new ListPage(rest.subList(0, limit), rest.get(limit - 1));
  }

  @Test
  void pagingThroughMergedPagesGivesEveryKeyOnceInHashOrder() {
    Random r = new Random(5);
    for (int shardCount : new int[] {1, 2, 5}) {
      for (int limit : new int[] {1, 2, 7, 1000}) {
        List<List<ObjectKey>> shards = new ArrayList<>();
        List<ObjectKey> all = new ArrayList<>();
        for (int s = 0; s < shardCount; s++) {
          shards.add(new ArrayList<>());
        }
        for (int i = 0; i < 200; i++) {
          ObjectKey k = new ObjectKey(1, "obj-" + r.nextLong());
          // Skewed: shard 0 gets half the keys, so shards run out at different pages.
          int s = r.nextBoolean() ? 0 : r.nextInt(shardCount);
          shards.get(s).add(k);
          all.add(k);
        }
        shards.forEach(keys -> keys.sort(PlacementHash.ORDER));
        all.sort(PlacementHash.ORDER);
        List<ObjectKey> seen = new ArrayList<>();
        ObjectKey after = null;
        do {
          List<ListPage> pages = new ArrayList<>();
          for (List<ObjectKey> keys : shards) {
            pages.add(shardPage(keys, after, limit));
          }
          ListPage merged = HashOrderMerge.merge(pages, limit);
          assertTrue(seen.size() <= all.size(), "paging does not end");
          assertTrue(merged.keys().size() <= limit);
          if (!merged.isLast()) {
            assertEquals(limit, merged.keys().size(), "a page short of the limit before the end");
            assertEquals(merged.keys().getLast(), merged.next());
          }
          seen.addAll(merged.keys());
          after = merged.next();
        } while (after != null);
        assertEquals(all, seen, shardCount + " shards, limit " + limit);
      }
    }
  }

  @Test
  void emptyShardsMergeToAnEmptyLastPage() {
    ListPage merged = HashOrderMerge.merge(List.of(new ListPage(List.of(), null)), 3);
    assertEquals(List.of(), merged.keys());
    assertNull(merged.next());
  }

  @Test
  void badArgumentsAreRefused() {
    ObjectKey k = new ObjectKey(1, "a");
    assertThrows(IllegalArgumentException.class, () -> HashOrderMerge.merge(List.of(), 0));
    // A page claiming more after fewer keys than the limit was not listed with this limit.
    assertThrows(
        IllegalArgumentException.class,
        () -> HashOrderMerge.merge(List.of(new ListPage(List.of(k), k)), 2));
  }
}
