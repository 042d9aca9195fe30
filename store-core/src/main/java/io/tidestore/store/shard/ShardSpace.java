package io.tidestore.store.shard;

import java.nio.file.Path;
import java.util.List;

/**
 * Where one shard lives: its space (two superblock copies at {@code base}, then its segments, at
 * the absolute offsets its superblock records) and its two index checkpoint slots. In a data
 * directory each is a file of its own ({@link #files}); on a raw block device all of them are
 * regions of the device.
 *
 * @param shard the shard number
 * @param path the file or device holding the space
 * @param base byte offset of the space (its first superblock copy) in {@code path}
 * @param slots the two checkpoint slots (generation g goes to slot g % 2)
 */
public record ShardSpace(int shard, Path path, long base, List<Slot> slots) {
  /**
   * One checkpoint slot.
   *
   * @param path the file or device holding it
   * @param offset where a checkpoint image starts in {@code path}
   * @param capacity the largest image it holds ({@link Long#MAX_VALUE}: a file that grows)
   * @param ownFile whether the slot is a file of its own (created at first use, absent before)
   */
  public record Slot(Path path, long offset, long capacity, boolean ownFile) {}

  public ShardSpace {
    slots = List.copyOf(slots);
    if (slots.size() != 2) {
      throw new IllegalArgumentException("a shard has two checkpoint slots, got " + slots.size());
    }
  }

  /** Shard {@code shard} of the store in data directory {@code dir}: {@link ShardFiles}. */
  public static ShardSpace files(Path dir, int shard) {
    return new ShardSpace(
        shard,
        ShardFiles.data(dir, shard),
        0,
        List.of(
            new Slot(ShardFiles.checkpoint(dir, shard, 0), 0, Long.MAX_VALUE, true),
            new Slot(ShardFiles.checkpoint(dir, shard, 1), 0, Long.MAX_VALUE, true)));
  }
}
