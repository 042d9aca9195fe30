package io.tidestore.osd.ops;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import java.util.List;

/**
 * A member's PG log as recovery compares it with the primary's.
 *
 * @param tail the newest trimmed version
 * @param entries the entries after it, oldest first
 */
public record LogCopy(Eversion tail, List<PgLogEntry> entries) {
  public LogCopy {
    entries = List.copyOf(entries);
  }

  /** The newest entry's version, or the tail. */
  public Eversion head() {
    return entries.isEmpty() ? tail : entries.get(entries.size() - 1).version();
  }
}
