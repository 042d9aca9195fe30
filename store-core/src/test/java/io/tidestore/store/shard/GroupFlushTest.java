package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.engine.StoreFormat.SpaceLayout;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.testing.IoFault;
import io.tidestore.store.testing.SimDisk;
import io.tidestore.store.testing.SimIoQueue;
import io.tidestore.store.testing.StoreCalls;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shards of one I/O queue commit as a group when their spaces share one file (the volume
 * layout): records of every shard, written in the same pass, become durable through one fdatasync
 * of the volume, where shards that are files of their own need one each. A failed group flush fails
 * every record it covered, in every shard, and none of them survives a crash.
 */
class GroupFlushTest {
  private static final int SHARDS = 3;

  @TempDir Path dir;

  @Test
  void recordsOfEveryShardOnAQueueShareOneFlushInAVolume() throws IOException {
    assertEquals(1, flushesForOneWritePerShard(SpaceLayout.VOLUME));
  }

  @Test
  void shardsThatAreFilesOfTheirOwnEachFlush() throws IOException {
    assertEquals(SHARDS, flushesForOneWritePerShard(SpaceLayout.FILES));
  }

  @Test
  void aFailedGroupFlushFailsEveryShardsRecordsAndNoneSurvives() throws IOException {
    StoreFormat.mkfs(
        dir,
        SHARDS,
        StoreHarness.SHARD_BYTES,
        StoreHarness.SEGMENT_BYTES,
        SpaceLayout.VOLUME,
        n -> {});
    SimDisk disk = new SimDisk(7);
    StoreConfig config = StoreHarness.testConfig();
    List<ObjectKey> keys;
    try (ObjectStore store = LogStore.open(dir, config)) {
      SimIoQueue queue = disk.newQueue();
      ShardStore[] shards = mountAll(store, queue);
      keys = onePerShard(store);
      queue.faultWhen((op, path) -> op == IoOpException.Op.SYNC ? IoFault.EIO : null);
      StoreException[] errors = writeAndWait(store, shards, queue, keys);
      for (int s = 0; s < SHARDS; s++) {
        assertNotNull(errors[s], "shard " + s + "'s write was acknowledged without a flush");
        assertEquals(StoreException.Code.IO_ERROR, errors[s].code());
      }
      disk.crash();
    }
    try (ObjectStore store = LogStore.open(dir, config)) {
      SimIoQueue queue = disk.newQueue();
      ShardStore[] shards = mountAll(store, queue);
      for (ObjectKey k : keys) {
        assertNull(stat(shards[store.shardOf(k)], queue, k), k + " survived a failed flush");
      }
    }
  }

  /**
   * Writes one object into each shard in one pass and counts the fdatasyncs that made them durable.
   */
  private int flushesForOneWritePerShard(SpaceLayout layout) throws IOException {
    StoreFormat.mkfs(
        dir, SHARDS, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES, layout, n -> {});
    SimDisk disk = new SimDisk(3);
    StoreConfig config = StoreHarness.testConfig();
    List<ObjectKey> keys;
    int[] syncs = {0};
    try (ObjectStore store = LogStore.open(dir, config)) {
      SimIoQueue queue = disk.newQueue();
      ShardStore[] shards = mountAll(store, queue);
      keys = onePerShard(store);
      queue.faultWhen(
          (op, path) -> {
            if (op == IoOpException.Op.SYNC) {
              syncs[0]++;
            }
            return null;
          });
      StoreException[] errors = writeAndWait(store, shards, queue, keys);
      for (StoreException e : errors) {
        assertNull(e);
      }
      disk.crash();
    }
    try (ObjectStore store = LogStore.open(dir, config)) {
      SimIoQueue queue = disk.newQueue();
      ShardStore[] shards = mountAll(store, queue);
      for (ObjectKey k : keys) {
        ObjectStat st = stat(shards[store.shardOf(k)], queue, k);
        assertNotNull(st, k + ": an acknowledged write was lost");
        assertEquals(4096, st.size());
      }
    }
    return syncs[0];
  }

  private static ShardStore[] mountAll(ObjectStore store, SimIoQueue queue) throws IOException {
    ShardStore[] shards = new ShardStore[SHARDS];
    for (int s = 0; s < SHARDS; s++) {
      shards[s] = store.mountShard(s, queue, ExtentCacheHook.NONE);
    }
    return shards;
  }

  private static List<ObjectKey> onePerShard(ObjectStore store) {
    ObjectKey[] picked = new ObjectKey[SHARDS];
    for (int i = 0, found = 0; found < SHARDS; i++) {
      ObjectKey k = new ObjectKey(1, "obj-" + i);
      int s = store.shardOf(k);
      if (picked[s] == null) {
        picked[s] = k;
        found++;
      }
    }
    return List.of(picked);
  }

  /** One 4 KiB write per key, all staged before the pass that seals them; the outcome per shard. */
  private static StoreException[] writeAndWait(
      ObjectStore store, ShardStore[] shards, SimIoQueue queue, List<ObjectKey> keys)
      throws IOException {
    StoreException[] errors = new StoreException[SHARDS];
    boolean[] done = new boolean[SHARDS];
    for (ObjectKey k : keys) {
      int s = store.shardOf(k);
      shards[s].write(
          k,
          0,
          MemorySegment.ofArray(new byte[4096]),
          (v, e) -> {
            errors[s] = e;
            done[s] = true;
          });
    }
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      boolean all = true;
      for (boolean d : done) {
        all &= d;
      }
      if (all) {
        return errors;
      }
      assertTrue(System.nanoTime() < deadline, "writes never completed");
      for (ShardStore s : shards) {
        s.endOfPass();
      }
      queue.await(1_000_000);
    }
  }

  /** The object's stat, or null when it does not exist. */
  private static ObjectStat stat(ShardStore shard, SimIoQueue queue, ObjectKey key)
      throws IOException {
    try {
      return StoreCalls.call(shard, queue, (StoreCompletion<ObjectStat> c) -> shard.stat(key, c));
    } catch (StoreException e) {
      if (e.code() == StoreException.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }
}
