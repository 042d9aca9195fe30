package io.tidestore.store.api;

import java.util.zip.CRC32C;

/**
 * The stable object-to-shard map: {@code crc32c(pool as 8 bytes little-endian, then the name's
 * UTF-8 bytes)}, taken as an unsigned 32-bit number, modulo the shard count. It is part of the
 * on-disk format (an object lives on the shard this picks), so it never changes; clients may
 * compute it to reach the owning reactor directly. Stateless and thread-safe.
 */
public final class Placement {
  private Placement() {}

  public static int shardOf(ObjectKey key, int shardCount) {
    if (shardCount < 1) {
      throw new IllegalArgumentException("shardCount must be >= 1");
    }
    CRC32C crc = new CRC32C();
    long pool = key.pool();
    for (int i = 0; i < 8; i++) {
      crc.update((int) (pool >>> (8 * i)) & 0xff);
    }
    byte[] name = key.nameBytes();
    crc.update(name, 0, name.length);
    return (int) (crc.getValue() % shardCount);
  }
}
