package io.tidestore.osd.ops;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import java.util.List;

/**
 * The last step of recovering a member: its PG log made the primary's, once its objects are. The
 * member removes {@code remove} (divergent entries, or all of them after a backfill), adds {@code
 * add} in version order, and sets its tail to {@code tail} when that is newer.
 *
 * @param tail the log's tail afterwards
 * @param remove versions to remove
 * @param add entries to add, oldest first
 */
public record LogSync(Eversion tail, List<Eversion> remove, List<PgLogEntry> add) {
  public LogSync {
    remove = List.copyOf(remove);
    add = List.copyOf(add);
  }
}
