package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.TestFiles;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.testing.StoreCalls;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The store on the real I/O backends (io_uring when the kernel allows it, and FileChannel) with
 * real files on disk: random writes, a clean remount, reads back.
 */
class RealBackendTest {
  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    TestFiles.deleteRecursively(dir);
  }

  @org.junit.jupiter.api.Test
  void aMountedShardRegistersItsPooledBuffersUntilItCloses() throws IOException {
    dir = TestFiles.createDirectory("store-real");
    StoreFormat.mkfs(dir, 2, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue =
            IoQueues.create(IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.IO_URING))) {
      // Each shard: its journal's record buffers and its read buffers, one region each.
      ShardStore s0 = store.mountShard(0, queue, ExtentCacheHook.NONE);
      assertEquals(
          true, queue.describe().contains("registered buffers 2 regions"), queue.describe());
      ShardStore s1 = store.mountShard(1, queue, ExtentCacheHook.NONE);
      assertEquals(
          true, queue.describe().contains("registered buffers 4 regions"), queue.describe());
      s0.close();
      assertEquals(
          true, queue.describe().contains("registered buffers 2 regions"), queue.describe());
      s1.close();
      assertTrue(queue.describe().contains("registered buffers none"), queue.describe());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = IoQueueConfig.Backend.class,
      names = {"AUTO", "FILE_CHANNEL"})
  void writesSurviveRemountOnRealFiles(IoQueueConfig.Backend backend) throws IOException {
    dir = TestFiles.createDirectory("store-real");
    StoreFormat.mkfs(dir, 2, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    byte[][] model = new byte[4][60_000];
    int[] sizes = new int[4]; // 0: never written, so never created
    Random r = new Random(3);
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults().withBackend(backend))) {
      for (int shard = 0; shard < 2; shard++) {
        ShardStore s = store.mountShard(shard, queue, ExtentCacheHook.NONE);
        for (int i = 0; i < 200; i++) {
          int o = r.nextInt(4);
          ObjectKey key = new ObjectKey(1, "obj-" + o);
          if (store.shardOf(key) != shard) {
            continue;
          }
          int off = r.nextInt(50_000);
          byte[] d = new byte[1 + r.nextInt(10_000)];
          r.nextBytes(d);
          int len = Math.min(d.length, model[o].length - off);
          System.arraycopy(d, 0, model[o], off, len);
          sizes[o] = Math.max(sizes[o], off + len);
          call(
              s,
              queue,
              (StoreCompletion<Void> c) ->
                  s.write(key, off, MemorySegment.ofArray(java.util.Arrays.copyOf(d, len)), c));
        }
        s.close();
      }
    }
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults().withBackend(backend));
        Arena arena = Arena.ofConfined()) {
      int checked = 0;
      for (int shard = 0; shard < 2; shard++) {
        ShardStore s = store.mountShard(shard, queue, ExtentCacheHook.NONE);
        for (int o = 0; o < 4; o++) {
          ObjectKey key = new ObjectKey(1, "obj-" + o);
          if (store.shardOf(key) != shard) {
            continue;
          }
          MemorySegment into = arena.allocate(model[o].length);
          if (sizes[o] == 0) {
            StoreException e =
                assertThrows(
                    StoreException.class,
                    () -> call(s, queue, (StoreCompletion<Integer> c) -> s.read(key, 0, into, c)));
            assertEquals(StoreException.Code.NOT_FOUND, e.code(), "never written: " + key);
            continue;
          }
          int n = call(s, queue, (StoreCompletion<Integer> c) -> s.read(key, 0, into, c));
          assertEquals(sizes[o], n, "size of " + key);
          byte[] got = into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
          assertArrayEquals(java.util.Arrays.copyOf(model[o], n), got, key.name());
          checked++;
        }
        s.close();
      }
      assertEquals(4, checked, "every object was written and read back");
    }
  }

  static <T> T call(ShardStore s, IoQueue q, java.util.function.Consumer<StoreCompletion<T>> op)
      throws IOException {
    return StoreCalls.call(s, q, op);
  }
}
