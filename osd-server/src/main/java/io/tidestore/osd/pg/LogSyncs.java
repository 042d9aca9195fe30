package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLog;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.Transaction;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * Applies a {@link LogSync} to this OSD's copy of a PG, after recovery moved its objects: the
 * removals and the new tail in one transaction, then the additions oldest first, in transactions of
 * {@link #BATCH}, so that a crash leaves a log that is the old one's common part plus a prefix of
 * the additions (its head then differs from the primary's, and peering recovers it again). The PG
 * then reloads its log from the store. Runs on the PG's shard thread.
 */
final class LogSyncs {
  /** Entries added per transaction (well under a record even for the longest object names). */
  static final int BATCH = 64;

  private LogSyncs() {}

  static CompletableFuture<Void> apply(ShardPgs shard, Pg pg, LogSync sync) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    ObjectKey meta = PgMeta.metaKey(pg.id);
    Transaction t = new Transaction();
    for (Eversion v : sync.remove()) {
      t.removeXattr(meta, PgMeta.logName(v));
    }
    if (sync.tail().after(pg.log.tail())) {
      t.setXattr(meta, PgMeta.INFO, PgMeta.encode(sync.tail()));
    }
    t.touch(meta);
    submit(shard, t, done, () -> add(shard, pg, sync, 0, done));
    return done.thenRun(() -> reload(shard, pg));
  }

  private static void add(
      ShardPgs shard, Pg pg, LogSync sync, int from, CompletableFuture<Void> done) {
    if (from >= sync.add().size()) {
      done.complete(null);
      return;
    }
    ObjectKey meta = PgMeta.metaKey(pg.id);
    Transaction t = new Transaction();
    int to = Math.min(sync.add().size(), from + BATCH);
    for (PgLogEntry e : sync.add().subList(from, to)) {
      t.setXattr(meta, PgMeta.logName(e.version()), e.encode());
    }
    submit(shard, t, done, () -> add(shard, pg, sync, to, done));
  }

  private static void submit(
      ShardPgs shard, Transaction t, CompletableFuture<Void> done, Runnable next) {
    shard.store.submit(
        t,
        (v, failure) -> {
          if (failure != null) {
            done.completeExceptionally(ObjectOpsException.from(failure));
          } else {
            next.run();
          }
        });
  }

  /** Reads the PG's log back from the store (what recovery wrote). */
  static void reload(ShardPgs shard, Pg pg) {
    SortedMap<String, byte[]> attrs = shard.attributes(PgMeta.metaKey(pg.id));
    pg.replaceLog(attrs == null ? PgLog.empty(pg.id) : PgLog.load(pg.id, attrs));
  }
}
