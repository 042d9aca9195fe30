package io.tidestore.store.shard;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * File names in a data directory: {@code volume} (every shard's space, in the volume layout) or
 * {@code shard-N} (one shard's space, in the files layout of older stores), {@code
 * shard-N.ckpt.0/1}, and {@code mkfs-incomplete}, present while a mkfs is under way or after one
 * was interrupted.
 */
public final class ShardFiles {
  /** Name of the file mkfs creates first and removes last; see {@link #mkfsMarker}. */
  public static final String MKFS_MARKER = "mkfs-incomplete";

  /** Name of the file that holds every shard's space in the volume layout. */
  public static final String VOLUME = "volume";

  /**
   * Names of every file a store's shards use: the volume, {@code shard-N}, {@code shard-N.ckpt.K}.
   */
  private static final Pattern SHARD_FILE =
      Pattern.compile("volume|shard-[0-9]+(\\.ckpt\\.[0-9]+)?");

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

  /** The volume: every shard's space, shard r at {@code r * S} (the volume layout). */
  public static Path volume(Path dir) {
    return dir.resolve(VOLUME);
  }

  /** Shard {@code shard}'s space in the files layout. */
  public static Path data(Path dir, int shard) {
    return dir.resolve("shard-" + shard);
  }

  public static Path checkpoint(Path dir, int shard, int slot) {
    return dir.resolve("shard-" + shard + ".ckpt." + slot);
  }
}
