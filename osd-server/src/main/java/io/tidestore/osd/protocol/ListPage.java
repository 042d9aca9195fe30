package io.tidestore.osd.protocol;

import java.util.List;

/**
 * One page of LIST: names in the store's order after the cursor.
 *
 * @param names at most the requested count
 * @param more true when names follow the last one returned
 */
public record ListPage(List<String> names, boolean more) {
  public ListPage {
    names = List.copyOf(names);
  }
}
