package io.tidestore.store.shard;

import java.nio.file.Path;

/** File names in a data directory: {@code shard-N} (the space), {@code shard-N.ckpt.0/1}. */
public final class ShardFiles {
  private ShardFiles() {}

  public static Path data(Path dir, int shard) {
    return dir.resolve("shard-" + shard);
  }

  public static Path checkpoint(Path dir, int shard, int slot) {
    return dir.resolve("shard-" + shard + ".ckpt." + slot);
  }
}
