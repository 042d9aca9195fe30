package io.tidestore.osd.protocol;

import io.tidestore.store.api.ObjectKey;

/**
 * Object placement for protocol v1 ({@link FrameDescriptor#PLACEMENT_CRC32C}): protocol objects
 * live in pool 0 of the store, so an object's shard is the store's own {@link
 * io.tidestore.store.api.Placement}: crc32c(pool 0 as 8 little-endian bytes, then the UTF-8 name),
 * unsigned, modulo the shard count. The OSD and shard-aware clients must agree on it; it is part of
 * the store's on-disk format, so it never changes. Stateless.
 */
public final class Placement {
  /** The store pool protocol v1 objects live in. */
  public static final long POOL = 0;

  private Placement() {}

  /**
   * The shard of {@code name} among {@code shards} (must be positive); -1 for a name the store
   * cannot hold (empty or above {@link FrameDescriptor#MAX_NAME} bytes), which the server rejects.
   */
  public static int shardOf(String name, int shards) {
    try {
      return io.tidestore.store.api.Placement.shardOf(new ObjectKey(POOL, name), shards);
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }
}
