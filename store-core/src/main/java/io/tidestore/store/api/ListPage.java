package io.tidestore.store.api;

import java.util.List;

/**
 * One page of {@link ShardStore#list} or {@link ShardStore#listHashRange}: keys in order, and the
 * key to pass as {@code startAfter} for the next page, or {@code null} when this is the last page.
 * Immutable.
 */
public record ListPage(List<ObjectKey> keys, ObjectKey next) {
  public ListPage {
    keys = List.copyOf(keys);
  }

  public boolean isLast() {
    return next == null;
  }
}
