package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.engine.StoreFormat.SpaceLayout;
import io.tidestore.store.testing.SimDisk;
import io.tidestore.store.testing.SimIoQueue;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Several shards on one I/O queue, as a reactor mounts them: their journals share fdatasyncs, one
 * for the whole group when the shards are regions of one volume ({@code GroupFlush}), rounds of
 * their own otherwise ({@code SyncRound}), so one shard's records wait for, and start with, the
 * others' syncs. Random writes over all shards, a power cut at a random point, remount: every
 * object must hold a prefix of its writes that contains every acknowledged one, in every shard.
 */
class SharedQueuePowerCutTest {
  private static final int SHARDS = 3;

  @TempDir Path dir;

  /** Each seed in both layouts: one flush for the group (volume), one per shard file (files). */
  static Stream<Arguments> seeds() {
    return IntStream.rangeClosed(1, Integer.getInteger("powercut.seeds", 20))
        .boxed()
        .flatMap(
            seed ->
                Stream.of(
                    Arguments.of(seed, SpaceLayout.VOLUME), Arguments.of(seed, SpaceLayout.FILES)));
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void everyShardKeepsItsAcknowledgedWrites(int seed, SpaceLayout layout) throws IOException {
    Random r = new Random(seed);
    SimDisk disk = new SimDisk(seed);
    StoreFormat.mkfs(
        dir, SHARDS, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES, layout, n -> {});
    StoreConfig config = StoreHarness.testConfig().withJournalFlush(JournalFlush.SHARED_FDATASYNC);
    List<PowerCutTest.Model> models = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      models.add(new PowerCutTest.Model(new ObjectKey(1, "obj-" + i)));
    }
    for (int cycle = 0; cycle < 3; cycle++) {
      try (ObjectStore store = LogStore.open(dir, config)) {
        SimIoQueue queue = disk.newQueue();
        ShardStore[] shards = new ShardStore[SHARDS];
        for (int s = 0; s < SHARDS; s++) {
          shards[s] = store.mountShard(s, queue, ExtentCacheHook.NONE);
        }
        for (PowerCutTest.Model m : models) {
          verifyAndRebase(shards[store.shardOf(m.key)], queue, m, seed, cycle);
        }
        StoreException[] failure = {null};
        int rounds = 10 + r.nextInt(40);
        for (int round = 0; round < rounds; round++) {
          for (int i = 1 + r.nextInt(6); i > 0; i--) {
            PowerCutTest.Model m = models.get(r.nextInt(models.size()));
            long off = (long) r.nextInt(8) * 4096 + (r.nextBoolean() ? 0 : r.nextInt(4096));
            byte[] d = new byte[1 + r.nextInt(9000)];
            r.nextBytes(d);
            m.ops.add(new Object[] {"write", off, d});
            shards[store.shardOf(m.key)].write(
                m.key,
                off,
                MemorySegment.ofArray(d),
                (v, e) -> {
                  if (e != null) {
                    failure[0] = e;
                  } else {
                    m.acked++;
                  }
                });
          }
          for (int p = r.nextInt(3); p > 0; p--) {
            for (ShardStore s : shards) {
              s.endOfPass();
            }
            queue.await(1_000_000);
          }
          assertNull(failure[0], "a write failed");
        }
        disk.crash();
      }
    }
    assertTrue(disk.crashes() >= 3);
  }

  private static void verifyAndRebase(
      ShardStore shard, SimIoQueue queue, PowerCutTest.Model m, long seed, int cycle)
      throws IOException {
    if (m.rebaseOnPrefix(contents(shard, queue, m.key))) {
      return;
    }
    fail(
        "seed "
            + seed
            + " cycle "
            + cycle
            + ": "
            + m.key.name()
            + " matches no prefix of its "
            + m.ops.size()
            + " writes that keeps all "
            + m.acked
            + " acknowledged ones");
  }

  /** The object's bytes, or null when it does not exist. */
  private static byte[] contents(ShardStore shard, SimIoQueue queue, ObjectKey key)
      throws IOException {
    ObjectStat[] st = {null};
    StoreException[] err = {null};
    boolean[] done = {false};
    shard.stat(
        key,
        (v, e) -> {
          st[0] = v;
          err[0] = e;
          done[0] = true;
        });
    await(shard, queue, done);
    if (err[0] != null) {
      if (err[0].code() == StoreException.Code.NOT_FOUND) {
        return null;
      }
      throw err[0];
    }
    try (Arena a = Arena.ofConfined()) {
      int len = (int) st[0].size();
      MemorySegment into = a.allocate(Math.max(1, len));
      boolean[] read = {false};
      shard.read(
          key,
          0,
          into.asSlice(0, len),
          (n, e) -> {
            err[0] = e;
            read[0] = true;
          });
      await(shard, queue, read);
      if (err[0] != null) {
        throw err[0];
      }
      return into.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
    }
  }

  private static void await(ShardStore shard, SimIoQueue queue, boolean[] done) throws IOException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!done[0]) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("operation did not complete within 30 s");
      }
      shard.endOfPass();
      queue.await(1_000_000);
    }
  }
}
