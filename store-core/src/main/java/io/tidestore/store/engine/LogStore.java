package io.tidestore.store.engine;

import io.tidestore.store.DataDirLock;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.journal.GroupFlush;
import io.tidestore.store.journal.SyncRound;
import io.tidestore.store.journal.SyncSharing;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.owner.Owner;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.shard.ShardFiles;
import io.tidestore.store.shard.ShardMemory;
import io.tidestore.store.shard.ShardMount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The log-structured store in a data directory (its shards' spaces in {@code DIR/volume}, in older
 * stores {@code DIR/shard-N}, or on a device: {@link StoreLayout}; index checkpoints in {@code
 * DIR/shard-N.ckpt.0/1}), owned by this process through {@link DataDirLock} for as long as it is
 * open; its shards are {@link io.tidestore.store.shard.LogShard}s. {@link #open} is for one thread
 * at startup; see {@link ObjectStore} for the rest.
 */
public final class LogStore implements ObjectStore {
  private final Path dir;
  private final DataDirLock lock;
  private final StoreLayout layout;
  private final int shardCount;
  private final StoreConfig config;
  private final MemoryBudget budget;

  /**
   * How the shards mounted on one I/O queue (one owner thread) share their journal syncs: one
   * {@link GroupFlush} when their spaces share one file or device, else a {@link SyncRound} that
   * lines up their own. Keyed by identity; a queue's entry lives as long as the store.
   */
  private final Map<IoQueue, SyncSharing> syncSharing = new IdentityHashMap<>();

  private LogStore(
      Path dir,
      DataDirLock lock,
      StoreLayout layout,
      int shardCount,
      StoreConfig config,
      MemoryBudget budget) {
    this.dir = dir;
    this.lock = lock;
    this.layout = layout;
    this.shardCount = shardCount;
    this.config = config;
    this.budget = budget;
  }

  /** The refusal of {@link #open} on a directory an interrupted mkfs left. */
  private static String interruptedMkfsMessage(Path dir) {
    return "an interrupted mkfs left "
        + dir
        + " incomplete ("
        + ShardFiles.mkfsMarker(dir)
        + " exists); rerun mkfs: tidestore mkfs --data "
        + dir
        + " (or start tidestore osd on it, which formats it with its --shards/--shard-size)";
  }

  /** Opens the store in {@code dir} and takes its lock; its memory is counted but not limited. */
  public static LogStore open(Path dir, StoreConfig config) throws IOException {
    return open(dir, config, MemoryBudget.unbounded());
  }

  /**
   * Opens the store in {@code dir} and takes its lock; every shard it mounts charges its I/O
   * buffers and index to {@code budget} (the daemon's {@code --memory-limit}).
   */
  public static LogStore open(Path dir, StoreConfig config, MemoryBudget budget)
      throws IOException {
    DataDirLock lock = DataDirLock.acquire(dir);
    try {
      if (Files.exists(ShardFiles.mkfsMarker(dir))) {
        throw new IOException(interruptedMkfsMessage(dir));
      }
      StoreLayout layout = StoreLayout.of(dir);
      Superblock sb = layout.readSuperblock(0);
      for (int s = 1; s < sb.shardCount(); s++) {
        Superblock other = layout.readSuperblock(s);
        if (other.storeId() != sb.storeId() || other.shardCount() != sb.shardCount()) {
          throw new IOException(
              "shard "
                  + s
                  + " ("
                  + layout.space(s).path()
                  + ") belongs to another store than shard 0 ("
                  + layout.space(0).path()
                  + ")");
        }
      }
      // AUTO becomes what this layout does best; config() then says which.
      StoreConfig resolved =
          config.withJournalFlush(config.journalFlush().resolve(layout.sharedSpaces()));
      return new LogStore(dir, lock, layout, sb.shardCount(), resolved, budget);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  @Override
  public Path dir() {
    return dir;
  }

  /** Where the shards live (files in {@link #dir()}, or a raw block device). */
  public StoreLayout layout() {
    return layout;
  }

  @Override
  public int shardCount() {
    return shardCount;
  }

  @Override
  public StoreConfig config() {
    return config;
  }

  @Override
  public MemoryBudget budget() {
    return budget;
  }

  @Override
  public long shardIoBytes() throws IOException {
    // Segment bytes are fixed at mkfs and the same in every shard.
    return shardIoBytes(config, layout.readSuperblock(0).segmentBytes());
  }

  @Override
  public long shardIndexBytes() {
    return initialIndexBytes();
  }

  @Override
  public ShardStore mountShard(int shard, IoQueue queue, ExtentCacheHook cache, Owner owner)
      throws IOException {
    if (shard < 0 || shard >= shardCount) {
      throw new IllegalArgumentException("shard " + shard + " not in 0.." + (shardCount - 1));
    }
    SyncSharing sharing;
    synchronized (syncSharing) {
      sharing =
          syncSharing.computeIfAbsent(
              queue, q -> layout.sharedSpaces() ? new GroupFlush(q) : new SyncRound());
    }
    return ShardMount.mount(layout.space(shard), queue, config, cache, budget, sharing, owner);
  }

  /** Releases the data directory; close every mounted shard first. */
  @Override
  public void close() throws IOException {
    lock.close();
  }

  /** Native bytes a shard with segments of {@code segmentBytes} holds from mount to close. */
  public static long shardIoBytes(StoreConfig config, long segmentBytes) {
    return ShardMemory.fixedIoBytes(config, segmentBytes);
  }

  /** Bytes the index reservation of a newly mounted shard starts with. */
  public static long initialIndexBytes() {
    return ShardMemory.minimumIndexBytes();
  }
}
