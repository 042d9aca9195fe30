package io.tidestore.cluster.placement;

import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.store.api.PlacementHash;
import java.util.zip.CRC32C;

/**
 * Object name -> PG. The hash is fixed forever (every stored object's PG depends on it): CRC32C
 * (Castagnoli, as {@link CRC32C} computes it) of the name's UTF-8 bytes, an unsigned 32-bit value
 * ({@link PlacementHash}). It is folded to the pool's pg_num by Ceph's {@code ceph_stable_mod}, so
 * doubling pg_num splits each PG in two (PG s keeps the objects whose new bit is 0, PG s + old
 * pg_num gets the others) instead of reshuffling every object. A PG's objects are one range of the
 * store's hash order ({@link io.tidestore.store.api.HashRange#ofPg}), which is how a shard lists
 * them.
 */
public final class ObjectHash {
  private ObjectHash() {}

  /**
   * The object's raw hash: CRC32C of the name's UTF-8 bytes, unsigned 32 bits in an int. Defined
   * once, in the store's API ({@link PlacementHash}), which lists a PG's objects by it.
   */
  public static int hash(String objectName) {
    return PlacementHash.of(objectName);
  }

  /** The raw PG (pool, whole hash), as Ceph's {@code ceph osd map} prints first. */
  public static PgId rawPg(PoolInfo pool, String objectName) {
    return new PgId(pool.id(), hash(objectName));
  }

  /** The PG that holds the object. */
  public static PgId pg(PoolInfo pool, String objectName) {
    return new PgId(pool.id(), fold(hash(objectName), pool.pgNum()));
  }

  /** A raw hash folded to one of {@code pgNum} PGs. */
  public static int fold(int hash, int pgNum) {
    return stableMod(hash, pgNum, mask(pgNum));
  }

  /**
   * Ceph's {@code ceph_stable_mod(x, b, bmask)}: {@code x mod b} that moves the fewest values when
   * {@code b} grows. {@code bmask} is the smallest {@code 2^n - 1 >= b - 1}.
   */
  static int stableMod(int x, int b, int bmask) {
    return (x & bmask) < b ? x & bmask : x & (bmask >>> 1);
  }

  /** Ceph's pg_num_mask: {@code (1 << cbits(pgNum - 1)) - 1}. */
  static int mask(int pgNum) {
    if (pgNum < 1) {
      throw new IllegalArgumentException("pg_num " + pgNum + " is below 1");
    }
    int bits = 32 - Integer.numberOfLeadingZeros(pgNum - 1);
    return (int) ((1L << bits) - 1);
  }
}
