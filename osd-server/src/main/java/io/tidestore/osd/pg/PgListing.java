package io.tidestore.osd.pg;

import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The names of a PG's objects, here (the store's hash range of the PG) and on a member (LIST_PG, a
 * page at a time), and going through them one object after the other: what a backfill and a deep
 * scrub do. Runs on the PG's shard thread.
 */
final class PgListing {
  /** Names asked per page. */
  static final int PAGE = 256;

  private PgListing() {}

  /** The PG's objects in this shard, in hash order (a listing completes inside the call). */
  static List<String> local(ShardPgs shard, Pg pg) {
    PoolInfo pool = shard.services.map().get().map().pools().get(pg.id.pool());
    List<String> names = new ArrayList<>();
    if (pool == null) {
      return names;
    }
    HashRange range = HashRange.ofPg(pool.pgNum(), pg.id.seed());
    ObjectKey[] cursor = {null};
    boolean[] more = {true};
    while (more[0]) {
      StoreException[] failure = {null};
      shard.store.listHashRange(
          pg.id.pool(),
          range,
          cursor[0],
          PAGE,
          (ListPage page, StoreException f) -> {
            failure[0] = f;
            if (f == null) {
              for (ObjectKey k : page.keys()) {
                names.add(k.name());
              }
              cursor[0] = page.next();
              more[0] = !page.isLast();
            }
          });
      if (failure[0] != null) {
        throw ObjectOpsException.from(failure[0]);
      }
    }
    return names;
  }

  /** Runs {@code step} on each of {@code names}, one after the other, on {@code executor}. */
  static CompletableFuture<Void> forEach(
      List<String> names,
      int from,
      Function<String, CompletableFuture<Void>> step,
      Executor executor) {
    if (from >= names.size()) {
      return CompletableFuture.completedFuture(null);
    }
    return step.apply(names.get(from))
        .thenComposeAsync(v -> forEach(names, from + 1, step, executor), executor);
  }

  /**
   * Adds member {@code osd}'s names of the PG after {@code after} to {@code into}; {@code check}
   * runs before each page and throws to stop.
   */
  static CompletableFuture<Void> member(
      ShardPgs shard, Pg pg, int osd, String after, Set<String> into, Runnable check) {
    return shard
        .services
        .peers()
        .listPg(osd, shard.address(osd), shard.epoch(), pg.id, after, PAGE)
        .thenComposeAsync(
            (NamePage page) -> {
              check.run();
              into.addAll(page.names());
              return page.more() && !page.names().isEmpty()
                  ? member(shard, pg, osd, page.names().get(page.names().size() - 1), into, check)
                  : CompletableFuture.<Void>completedFuture(null);
            },
            shard.executor);
  }
}
