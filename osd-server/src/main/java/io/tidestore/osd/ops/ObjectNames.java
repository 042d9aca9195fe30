package io.tidestore.osd.ops;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.Placement;

/**
 * How the names of {@link ObjectOps} map onto the store: every object lives in pool {@link #POOL},
 * so its key is {@code (0, name)} and its shard the store's own {@link Placement}: crc32c(pool 0 as
 * 8 little-endian bytes, then the UTF-8 name), unsigned, modulo the shard count. The OSD and
 * shard-aware clients must agree on it; it is part of the store's on-disk format, so it never
 * changes. Stateless.
 */
public final class ObjectNames {
  /** The store pool every object of {@link ObjectOps} lives in. */
  public static final long POOL = 0;

  private ObjectNames() {}

  /**
   * The store key of {@code name}.
   *
   * @throws ObjectOpsException INVALID for a name the store cannot hold (empty, or above {@link
   *     ObjectKey#MAX_NAME_BYTES} bytes of UTF-8)
   */
  public static ObjectKey key(String name) {
    try {
      return new ObjectKey(POOL, name);
    } catch (IllegalArgumentException e) {
      throw new ObjectOpsException(ObjectOpsException.Code.INVALID, e.getMessage());
    }
  }

  /**
   * The shard of {@code name} among {@code shards} (must be positive); -1 for a name the store
   * cannot hold, which the OSD rejects.
   */
  public static int shardOf(String name, int shards) {
    try {
      return Placement.shardOf(new ObjectKey(POOL, name), shards);
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }
}
