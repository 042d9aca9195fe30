package io.tidestore.osd.ops;

import java.util.List;

/**
 * One page of {@link ObjectOps#list}: object names of one shard, in the store's order, after the
 * cursor. Names, not store keys ({@link io.tidestore.store.api.ListPage}): object ops live in one
 * pool ({@link ObjectNames#POOL}), and a client across the wire learns only whether more follow.
 * Immutable.
 *
 * @param names at most the requested count
 * @param more true when names follow the last one returned
 */
public record NamePage(List<String> names, boolean more) {
  public NamePage {
    names = List.copyOf(names);
  }
}
