package io.tidestore.store.shard;

import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.index.IndexMemory;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.record.Blocks;

/**
 * What one mounted shard holds against {@code --memory-limit} from mount to close, so the daemon
 * can check before it mounts anything that the shards fit. The I/O buffers are allocated once at
 * mount: two blocks, the read pool, the journal's pools and the cleaner's segment buffer; the index
 * starts with one {@link IndexMemory#STEP}.
 */
public final class ShardMemory {
  /** One read buffer: the longest run a disk read covers (reads are split at this size). */
  public static final int READ_BUFFER_BYTES = 128 << 10;

  /**
   * Disk reads a shard has in flight at most; more wait in its backlog. A quarter of the default
   * 128-entry I/O queue, which several shards share.
   */
  public static final int READ_BUFFERS = 32;

  private ShardMemory() {}

  /** Native I/O buffers a shard with segments of {@code segmentBytes} allocates at mount. */
  public static long fixedIoBytes(StoreConfig config, long segmentBytes) {
    // A zero block for merges and the superblock block written at mount.
    return 2L * Blocks.SIZE
        + (long) READ_BUFFERS * READ_BUFFER_BYTES
        + Journal.fixedBytes(config)
        + segmentBytes;
  }

  /** The index reservation a shard starts with. */
  public static long minimumIndexBytes() {
    return IndexMemory.STEP;
  }
}
