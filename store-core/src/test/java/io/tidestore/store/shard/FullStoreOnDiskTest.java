package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.Fsck;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.TestFiles;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A truly full shard on real files and the real I/O backend: the write that cannot fit fails with
 * NO_SPACE at once (no waiting for a cleaner that cannot help), reads and removes keep working,
 * writes work again once removes freed space, and fsck finds nothing wrong.
 */
class FullStoreOnDiskTest {
  private static final int CHUNK = 64 << 10;
  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    TestFiles.deleteRecursively(dir);
  }

  @Test
  void fullShardRefusesPromptlyAndRecoversAfterRemoves() throws IOException {
    dir = TestFiles.createDirectory("store-full");
    StoreFormat.mkfs(dir, 1, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    List<ObjectKey> written = new ArrayList<>();
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults())) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      StoreException full = null;
      long refusedAfterNanos = 0;
      for (int i = 0; i < 200 && full == null; i++) {
        ObjectKey k = new ObjectKey(1, "fill-" + i);
        long t0 = System.nanoTime();
        try {
          write(s, queue, k, content(i));
          written.add(k);
        } catch (StoreException e) {
          full = e;
          refusedAfterNanos = System.nanoTime() - t0;
        }
      }
      assertTrue(full != null, "a 4 MiB shard cannot take 200 x 64 KiB");
      assertEquals(StoreException.Code.NO_SPACE, full.code(), full.getMessage());
      assertTrue(
          refusedAfterNanos < 1_000_000_000L,
          "NO_SPACE took " + refusedAfterNanos / 1_000_000 + " ms");
      for (int i = 0; i < written.size(); i++) {
        assertArrayEquals(content(i), read(s, queue, written.get(i)));
      }
      for (int i = 0; i < written.size(); i += 2) {
        ObjectKey k = written.get(i);
        RealBackendTest.call(s, queue, (StoreCompletion<Void> c) -> s.remove(k, c));
      }
      // The freed blocks are scattered over segments: the cleaner compacts them while the write
      // waits, so it must succeed without any retry.
      write(s, queue, new ObjectKey(1, "after"), content(999));
      s.close();
    }
    List<String> out = new ArrayList<>();
    assertEquals(0, Fsck.check(dir, out::add), String.join("\n", out));
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults())) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      assertArrayEquals(content(999), read(s, queue, new ObjectKey(1, "after")));
      for (int i = 1; i < written.size(); i += 2) {
        assertArrayEquals(content(i), read(s, queue, written.get(i)));
      }
      s.close();
    }
  }

  private static byte[] content(int i) {
    return FullStoreTest.content(i);
  }

  private static void write(ShardStore s, IoQueue q, ObjectKey k, byte[] data) throws IOException {
    RealBackendTest.call(
        s, q, (StoreCompletion<Void> c) -> s.write(k, 0, MemorySegment.ofArray(data), c));
  }

  private static byte[] read(ShardStore s, IoQueue q, ObjectKey k) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment into = a.allocate(CHUNK);
      int n = RealBackendTest.call(s, q, (StoreCompletion<Integer> c) -> s.read(k, 0, into, c));
      return into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }
  }
}
