package io.tidestore.cluster.pg;

import io.tidestore.cluster.placement.PgId;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One PG's log on one OSD, as Ceph's {@code PGLog}: the entries after the tail, in version order,
 * mirrored in memory and kept in the store as attributes of the PG's metadata object ({@link
 * PgMeta}). An operation stages its entry and the object's new version into the transaction that
 * carries its data ({@link #stage}), and the log takes the entry once that transaction committed
 * ({@link #committed}); trimming works the same way. Peering compares logs by their heads and
 * tails; recovery replays the entries a member misses.
 *
 * <p>Owned by the thread of the PG's shard; not thread-safe.
 */
public final class PgLog {
  private final PgId pg;
  private final ObjectKey meta;
  private final TreeMap<Eversion, PgLogEntry> entries = new TreeMap<>();
  private Eversion tail = Eversion.ZERO;
  private Eversion lastAssigned = Eversion.ZERO;

  private PgLog(PgId pg) {
    this.pg = pg;
    this.meta = PgMeta.metaKey(pg);
  }

  /** The log of a PG this OSD has never stored anything of. */
  public static PgLog empty(PgId pg) {
    return new PgLog(pg);
  }

  /**
   * The log as the store holds it: {@code attrs} are the attributes of {@link PgMeta#metaKey}.
   *
   * @throws IllegalArgumentException when an attribute does not decode or does not match its name
   *     (the store's records are crc-checked, so this is a bug or another format, never a torn
   *     write)
   */
  public static PgLog load(PgId pg, SortedMap<String, byte[]> attrs) {
    PgLog log = new PgLog(pg);
    byte[] info = attrs.get(PgMeta.INFO);
    if (info != null) {
      log.tail = PgMeta.decodeEversion(info);
    }
    for (Map.Entry<String, byte[]> a : attrs.tailMap(PgMeta.LOG_PREFIX).entrySet()) {
      if (!a.getKey().startsWith(PgMeta.LOG_PREFIX)) {
        break;
      }
      PgLogEntry e = PgLogEntry.decode(a.getValue());
      if (!a.getKey().equals(PgMeta.logName(e.version()))) {
        throw new IllegalArgumentException(
            "PG " + pg + ": attribute " + a.getKey() + " holds the entry of " + e.version());
      }
      if (!e.version().after(log.tail)) {
        throw new IllegalArgumentException(
            "PG " + pg + ": entry " + e.version() + " is not after the log's tail " + log.tail);
      }
      log.entries.put(e.version(), e);
    }
    log.lastAssigned = log.head();
    return log;
  }

  public PgId pg() {
    return pg;
  }

  /** The newest committed entry's version; the tail when the log is empty. */
  public Eversion head() {
    return entries.isEmpty() ? tail : entries.lastKey();
  }

  /** Everything up to here has been trimmed: the log holds the entries after it. */
  public Eversion tail() {
    return tail;
  }

  public int size() {
    return entries.size();
  }

  /**
   * The version for the next operation ordered in {@code epoch}: one past every version handed out
   * so far, in the later of {@code epoch} and theirs.
   */
  public Eversion nextVersion(long epoch) {
    lastAssigned = new Eversion(Math.max(epoch, lastAssigned.epoch()), lastAssigned.version() + 1);
    return lastAssigned;
  }

  /**
   * Adds to {@code t} the log entry {@code e} and, for a modification, the object's new version.
   * The caller adds the operation itself (for a delete, the object's removal) to the same
   * transaction and calls {@link #committed} once it committed.
   */
  public void stage(Transaction t, PgLogEntry e) {
    if (!e.version().after(head())) {
      throw new IllegalArgumentException(
          "PG " + pg + ": entry " + e.version() + " is not after the head " + head());
    }
    t.setXattr(meta, PgMeta.logName(e.version()), e.encode());
    if (e.op() == PgLogEntry.Op.MODIFY) {
      t.setXattr(
          PgMeta.objectKey(pg.pool(), e.object()), PgMeta.VERSION, PgMeta.encode(e.version()));
    }
  }

  /** {@code e}'s transaction committed: the log has it. */
  public void committed(PgLogEntry e) {
    entries.put(e.version(), e);
    if (e.version().after(lastAssigned)) {
      lastAssigned = e.version();
    }
  }

  /**
   * Adds to {@code t} the removal of the oldest entries up to {@code upTo}, at most {@code max} of
   * them, and the new tail; returns that tail (pass it to {@link #trimmed} once {@code t}
   * committed), or null when there is nothing to trim.
   */
  public Eversion stageTrim(Transaction t, Eversion upTo, int max) {
    Eversion newTail = null;
    int n = 0;
    for (Eversion v : entries.headMap(upTo, true).keySet()) {
      if (n++ == max) {
        break;
      }
      t.removeXattr(meta, PgMeta.logName(v));
      newTail = v;
    }
    if (newTail != null) {
      t.setXattr(meta, PgMeta.INFO, PgMeta.encode(newTail));
    }
    return newTail;
  }

  /**
   * Entries a clean PG keeps (Ceph's {@code osd_min_pg_log_entries} plays this part): older ones
   * are trimmed as new ones come. Every member has them (the primary acknowledges an op only once
   * all have it, and keeps far fewer in flight), and a member that missed more than its PG kept
   * needs a backfill rather than log-based recovery.
   */
  public static final int KEEP = 1000;

  /**
   * Most entries a PG that is not clean keeps (Ceph's {@code osd_max_pg_log_entries}): a member
   * away, or being recovered, then finds what it missed in the log and is recovered object by
   * object from it, not backfilled.
   */
  public static final int KEEP_NOT_CLEAN_MAX = 10_000;

  /**
   * Entries one OSD keeps across the copies of PGs it holds (Ceph's {@code
   * osd_target_pg_log_entries_per_osd}), which bounds the memory and the store's metadata that long
   * logs take.
   */
  public static final int KEEP_PER_OSD = 300_000;

  /** Most entries one transaction trims, so that records stay small. */
  public static final int TRIM_PER_OP = 16;

  /**
   * Entries a PG that is not clean keeps on an OSD that holds {@code pgCopies} PG copies: its share
   * of {@link #KEEP_PER_OSD}, at least {@link #KEEP} and at most {@link #KEEP_NOT_CLEAN_MAX}.
   */
  public static int keepNotClean(int pgCopies) {
    return Math.clamp(KEEP_PER_OSD / Math.max(1, pgCopies), KEEP, KEEP_NOT_CLEAN_MAX);
  }

  /**
   * Adds to {@code t}, the transaction of the entry at {@code applying}, the trim of entries {@code
   * keep} or more versions older (so that with it the log holds at most {@code keep}), at most
   * {@link #TRIM_PER_OP} of them (a log longer than {@code keep}, once its PG is clean again,
   * shortens over its next writes); returns the new tail for {@link #trimmed}, or null.
   */
  public Eversion stageRollingTrim(Transaction t, Eversion applying, int keep) {
    long keepFrom = applying.version() - keep; // the newest version to trim
    if (keepFrom <= 0 || entries.isEmpty() || entries.firstKey().version() > keepFrom) {
      return null;
    }
    Eversion upTo = entries.firstKey();
    for (Eversion v : entries.keySet()) {
      if (v.version() > keepFrom) {
        break;
      }
      upTo = v;
    }
    return stageTrim(t, upTo, TRIM_PER_OP);
  }

  /** The trim to {@code newTail} committed; returns the entries it removed, oldest first. */
  public List<PgLogEntry> trimmed(Eversion newTail) {
    NavigableMap<Eversion, PgLogEntry> gone = entries.headMap(newTail, true);
    List<PgLogEntry> removed = new ArrayList<>(gone.values());
    gone.clear();
    if (newTail.after(tail)) {
      tail = newTail;
    }
    return removed;
  }

  /** The entries after {@code v}, oldest first (what a member at {@code v} is missing). */
  public List<PgLogEntry> entriesAfter(Eversion v) {
    return new ArrayList<>(entries.tailMap(v, false).values());
  }

  /** Every entry, by version (a read-only view). */
  public NavigableMap<Eversion, PgLogEntry> entries() {
    return java.util.Collections.unmodifiableNavigableMap(entries);
  }
}
