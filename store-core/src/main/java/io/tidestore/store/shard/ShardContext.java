package io.tidestore.store.shard;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.util.zip.CRC32C;

/**
 * What every part of one mounted shard works with, fixed at mount: its number, I/O queue and file,
 * geometry, settings, index, segment table, cache and health. The parts (writes, reads, cleaner,
 * checkpointer) get this and the few collaborators they use, never the {@link LogShard} itself.
 * Owner thread only.
 */
final class ShardContext {
  final int shard;
  final IoQueue queue;
  final IoFile file;
  final Superblock superblock;
  final StoreConfig config;
  final ObjectIndex index;
  final SegmentTable segments;
  final ExtentCacheHook cache;
  final ShardHealth health;

  /** One checksum engine for the owner thread (CRC32C is stateful, not thread-safe). */
  final CRC32C crc = new CRC32C();

  ShardContext(
      int shard,
      IoQueue queue,
      IoFile file,
      Superblock superblock,
      StoreConfig config,
      ObjectIndex index,
      SegmentTable segments,
      ExtentCacheHook cache) {
    this.shard = shard;
    this.queue = queue;
    this.file = file;
    this.superblock = superblock;
    this.config = config;
    this.index = index;
    this.segments = segments;
    this.cache = cache;
    this.health = new ShardHealth(shard, file.path().toString());
  }

  /** " (shard N, PATH)", for messages. */
  String where() {
    return " (shard " + shard + ", " + file.path() + ")";
  }

  /** Free I/O queue slots. */
  int freeSlots() {
    return queue.capacity() - queue.inFlight();
  }

  /** Submits what was prepared; a failed submit is logged, its operations fail on their own. */
  void submitQuietly() {
    try {
      queue.submit();
    } catch (IOException ex) {
      System.getLogger(ShardContext.class.getName())
          .log(System.Logger.Level.ERROR, "shard " + shard + ": I/O submit failed: " + ex);
    }
  }
}
