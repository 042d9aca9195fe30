package io.tidestore.osd.protocol;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Object placement: the store shard an object name belongs to ({@link
 * FrameDescriptor#PLACEMENT_CRC32C}: crc32c of the UTF-8 name, unsigned, modulo the shard count).
 * The OSD and shard-aware clients must agree on it. Stateless.
 */
public final class Placement {
  private Placement() {}

  /** The shard of {@code name} among {@code shards} (must be positive). */
  public static int shardOf(String name, int shards) {
    CRC32C crc = new CRC32C();
    crc.update(name.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % shards);
  }
}
