package io.tidestore.cluster.pg;

import io.tidestore.cluster.placement.PgId;
import io.tidestore.store.api.ObjectKey;
import java.nio.ByteBuffer;

/**
 * Where a PG lives in an OSD's store. This is on-disk format: changing any of it strands what
 * cluster OSDs have stored.
 *
 * <ul>
 *   <li><b>Objects</b> of cluster pool {@code P} are store objects of pool {@code P} under their
 *       own names.
 *   <li><b>The PG's metadata</b> is one store object per PG, of pool {@code 2^32 + P} (outside
 *       every cluster pool id, so no client name can collide with it), named as Ceph writes the PG
 *       id ({@code 1.2f}). Its attributes hold the log, one per entry, named {@code log.} and the
 *       entry's {@link Eversion#sortKey} (so they list in log order), {@code info}, the log's tail
 *       (written when the log is trimmed), {@link #DEEP_SCRUB_STAMP} and {@link #LAST_ACTIVE}.
 *   <li><b>An object's version</b> is its attribute {@code _v} (an {@link Eversion}), set in the
 *       same transaction as the data and the log entry.
 *   <li><b>Shard:</b> a PG's objects and its metadata are all in one shard of the OSD, {@link
 *       #shardOf}, so that one store transaction (which is one shard's record) covers an
 *       operation's data, log entry and version; Crimson likewise gives each PG to one core.
 * </ul>
 */
public final class PgMeta {
  private PgMeta() {}

  /** Added to a pool id to name the store pool of its PGs' metadata objects. */
  public static final long META_POOL_BASE = 1L << 32;

  /** Prefix of the attributes that hold log entries. */
  public static final String LOG_PREFIX = "log.";

  /** The attribute that holds the log's tail. */
  public static final String INFO = "info";

  /**
   * The attribute of a PG's metadata object that holds when its primary last deep-scrubbed it: u64
   * wall-clock milliseconds, big-endian. Written by that primary alone; other members may hold an
   * older one or none.
   */
  public static final String DEEP_SCRUB_STAMP = "scrub.deep";

  /**
   * The attribute of a PG's metadata object that holds the map epoch of the newest activation this
   * copy was a member of (Ceph's {@code last_epoch_started}): u64, big-endian. Kept before the
   * monitors record that activation, so a copy that lacks it (wiped, or never a member) never
   * counts as holding the PG's history (docs/cluster.md "PG history").
   */
  public static final String LAST_ACTIVE = "active.last";

  /**
   * The attribute of a PG's metadata object that marks this copy as being removed (a stray copy its
   * primary reported clean without it): u64 epoch, big-endian. Set before the first object goes,
   * the metadata object itself last, so a copy holding it is never taken for the PG's data; a
   * restart finishes the removal (docs/cluster.md "Stray copies").
   */
  public static final String REMOVING = "removing";

  /** The attribute of every object that holds its version. */
  public static final String VERSION = "_v";

  /** The store object holding PG {@code pg}'s log and info. */
  public static ObjectKey metaKey(PgId pg) {
    return new ObjectKey(META_POOL_BASE + pg.pool(), pg.toString());
  }

  /** The store object of cluster object {@code name} of pool {@code pool}. */
  public static ObjectKey objectKey(int pool, String name) {
    return new ObjectKey(pool, name);
  }

  /** The attribute name of the log entry at {@code v}. */
  public static String logName(Eversion v) {
    return LOG_PREFIX + v.sortKey();
  }

  /**
   * The shard of an OSD with {@code shards} shards that holds PG {@code pg}: {@code (seed + pool)
   * mod shards}, unsigned. A pool's consecutive seeds go round the shards, so its PGs spread
   * evenly.
   */
  public static int shardOf(PgId pg, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be >= 1");
    }
    return Integer.remainderUnsigned(pg.seed() + pg.pool(), shards);
  }

  /** An {@link Eversion} as the value of an attribute. */
  public static byte[] encode(Eversion v) {
    ByteBuffer b = ByteBuffer.allocate(Eversion.BYTES);
    v.writeTo(b);
    return b.array();
  }

  /**
   * The {@link Eversion} of an attribute's value.
   *
   * @throws IllegalArgumentException unless {@code bytes} is exactly one eversion
   */
  public static Eversion decodeEversion(byte[] bytes) {
    if (bytes.length != Eversion.BYTES) {
      throw new IllegalArgumentException(
          "an eversion is " + Eversion.BYTES + " bytes, not " + bytes.length);
    }
    return Eversion.readFrom(ByteBuffer.wrap(bytes));
  }
}
