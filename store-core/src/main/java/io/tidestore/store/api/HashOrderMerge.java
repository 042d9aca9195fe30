package io.tidestore.store.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Merges the pages that every shard gave for one {@link ShardStore#listHashRange} request (same
 * pool, range, cursor and limit) into the store's page: a PG's objects are spread over every shard
 * by {@link Placement}, so a caller listing a PG asks each shard and merges. Stateless.
 */
public final class HashOrderMerge {
  private HashOrderMerge() {}

  /** A key with its hash computed once, so sorting does not hash on every comparison. */
  private record Hashed(int hash, ObjectKey key) {}

  private static final Comparator<Hashed> ORDER =
      (a, b) -> PlacementHash.compare(a.hash, a.key.name(), b.hash, b.key.name());

  /**
   * The first {@code limit} keys of the shards' pages in hash order, and the cursor for the next
   * page: the last key taken, unless every shard's page was its last and nothing was left out.
   * Correct because each shard's page holds that shard's first {@code limit} keys after the cursor,
   * so the store's first {@code limit} are among them, and a shard with more left has given {@code
   * limit} keys, all of which sort at or after the {@code limit}-th key of the merge.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1, or a page that is not its
   *     shard's last holds fewer than {@code limit} keys (it was not asked with this limit)
   */
  public static ListPage merge(List<ListPage> shardPages, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, got " + limit);
    }
    List<Hashed> all = new ArrayList<>();
    boolean shardHasMore = false;
    for (ListPage page : shardPages) {
      if (!page.isLast() && page.keys().size() < limit) {
        throw new IllegalArgumentException(
            "a shard's page of "
                + page.keys().size()
                + " keys is not its last, so it was not listed with limit "
                + limit);
      }
      shardHasMore |= !page.isLast();
      for (ObjectKey key : page.keys()) {
        all.add(new Hashed(key.placementHash(), key));
      }
    }
    all.sort(ORDER);
    int n = Math.min(limit, all.size());
    List<ObjectKey> taken = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      taken.add(all.get(i).key);
    }
    boolean last = all.size() <= limit && !shardHasMore;
    return new ListPage(taken, last ? null : taken.getLast());
  }
}
