package io.tidestore.osd.pg;

import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a member does for a primary that recovers a PG: hands out its log and its objects (a piece
 * at a time), takes the primary's objects and log, and lists its objects for a backfill. Runs on
 * the PG's shard thread.
 */
// Each store or copy step completes the caller's future in its own whenComplete.
@SuppressWarnings("FutureReturnValueIgnored")
final class RecoveryMember {
  private final ShardPgs shard;

  RecoveryMember(ShardPgs shard) {
    this.shard = shard;
  }

  void getLog(Pg pg, CompletableFuture<LogCopy> done) {
    shard.replica.afterApplies(
        pg,
        () ->
            done.complete(new LogCopy(pg.log.tail(), new ArrayList<>(pg.log.entries().values()))));
  }

  /**
   * Takes a piece the primary pushed (and releases it), unless it was sent on a map older than this
   * PG's interval here: a primary's recovery or repair that a new interval abandoned must not
   * overwrite what the new primary has since written.
   */
  void push(Pg pg, long epoch, ObjectChunk chunk, CompletableFuture<Void> done) {
    if (epoch < pg.intervalStart) {
      chunk.release();
      done.completeExceptionally(pg.staleFor(epoch, "sender", ""));
      return;
    }
    Futures.forward(shard.copies.write(pg.id, chunk), done);
  }

  void pull(Pg pg, String name, long offset, int max, CompletableFuture<ObjectChunk> done) {
    Futures.forward(shard.copies.read(pg.id, name, offset, max), done);
  }

  void logSync(Pg pg, LogSync sync, CompletableFuture<Void> done) {
    Futures.forward(LogSyncs.apply(shard, pg, sync), done);
  }

  /** The PG's objects on this OSD after {@code after}, in the store's hash order. */
  void listPg(Pg pg, String after, int max, CompletableFuture<NamePage> done) {
    PoolInfo pool = shard.services.map().get().map().pools().get(pg.id.pool());
    if (pool == null) {
      done.completeExceptionally(
          new ObjectOpsException(ObjectOpsException.Code.STALE_MAP, "no pool " + pg.id.pool()));
      return;
    }
    ObjectKey start = after.isEmpty() ? null : PgMeta.objectKey(pg.id.pool(), after);
    shard.store.listHashRange(
        pg.id.pool(),
        HashRange.ofPg(pool.pgNum(), pg.id.seed()),
        start,
        max,
        (ListPage page, io.tidestore.store.api.StoreException f) -> {
          if (f != null) {
            done.completeExceptionally(ObjectOpsException.from(f));
            return;
          }
          List<String> names = new ArrayList<>(page.keys().size());
          for (ObjectKey k : page.keys()) {
            names.add(k.name());
          }
          done.complete(new NamePage(names, !page.isLast()));
        });
  }
}
