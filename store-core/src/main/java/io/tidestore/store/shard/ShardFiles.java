package io.tidestore.store.shard;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * File names in a data directory: {@code shard-N} (the space), {@code shard-N.ckpt.0/1}, and {@code
 * mkfs-incomplete}, present while a mkfs is under way or after one was interrupted.
 */
public final class ShardFiles {
  /** Name of the file mkfs creates first and removes last; see {@link #mkfsMarker}. */
  public static final String MKFS_MARKER = "mkfs-incomplete";

  /** Names of every file a store's shards use: {@code shard-N}, {@code shard-N.ckpt.K}. */
  private static final Pattern SHARD_FILE = Pattern.compile("shard-[0-9]+(\\.ckpt\\.[0-9]+)?");

  private ShardFiles() {}

  /**
   * The marker of an unfinished mkfs: made durable before the first shard file is created, removed
   * (durably) after every shard file is complete and synced. A directory holding it holds no usable
   * store, only what an interrupted mkfs left.
   */
  public static Path mkfsMarker(Path dir) {
    return dir.resolve(MKFS_MARKER);
  }

  /** Whether {@code name} is the name of a shard's space or checkpoint file. */
  public static boolean isShardFile(String name) {
    return SHARD_FILE.matcher(name).matches();
  }

  public static Path data(Path dir, int shard) {
    return dir.resolve("shard-" + shard);
  }

  public static Path checkpoint(Path dir, int shard, int slot) {
    return dir.resolve("shard-" + shard + ".ckpt." + slot);
  }
}
