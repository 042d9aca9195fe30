package io.tidestore.store.api;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.zip.CRC32C;

/**
 * The cluster's object hash and the order it gives. The hash is fixed forever (every stored
 * object's placement group depends on it): CRC32C (Castagnoli, as {@link CRC32C} computes it) of
 * the object name's UTF-8 bytes, an unsigned 32-bit value carried in an {@code int}. The pool is
 * not hashed: it selects the pool's pg_num, the hash selects the PG within it.
 *
 * <p>The <em>hash order</em> of a pool's objects is Ceph's bitwise order: by the hash with its 32
 * bits reversed ({@link #reversed}), then by name. Reversed, the hash's low bits (the ones {@code
 * ceph_stable_mod} keeps) come first, so the objects of one PG are one contiguous {@link HashRange}
 * of this order, and a PG split cuts its range in two. A listing cursor is a point of this order,
 * the (reversed hash, name) of the last key returned, valid whether or not that key still exists.
 *
 * <p>This is not the shard map ({@link Placement}, which hashes the pool too and is part of the
 * on-disk format). Stateless and thread-safe.
 */
public final class PlacementHash {
  private PlacementHash() {}

  /** Keys of one pool in hash order: reversed hash, then name. Computes both keys' hashes. */
  public static final Comparator<ObjectKey> ORDER =
      (a, b) -> compare(a.placementHash(), a.name(), b.placementHash(), b.name());

  /** The placement hash of {@code objectName}: CRC32C of its UTF-8 bytes. */
  public static int of(String objectName) {
    CRC32C crc = new CRC32C();
    crc.update(objectName.getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }

  /** {@code hash} with its 32 bits reversed, unsigned: the position of the hash in hash order. */
  public static long reversed(int hash) {
    return Integer.toUnsignedLong(Integer.reverse(hash));
  }

  /** Compares (hash, name) pairs in hash order; the names break ties of equal hashes. */
  public static int compare(int hashA, String nameA, int hashB, String nameB) {
    int byHash = Long.compare(reversed(hashA), reversed(hashB));
    return byHash != 0 ? byHash : nameA.compareTo(nameB);
  }
}
