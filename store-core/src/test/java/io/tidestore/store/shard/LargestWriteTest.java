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
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
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
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The largest single write ({@link ShardStore#MAX_WRITE_BYTES}, the protocol's largest payload) is
 * one record on the default segment geometry, reads back across a remount, and one byte more is a
 * clear INVALID; on a store whose segments are smaller the limit is what a segment holds.
 */
class LargestWriteTest {
  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    TestFiles.deleteRecursively(dir);
  }

  @Test
  void aSixteenMebibyteWriteIsOneRecordAndOneByteMoreIsRefused() throws IOException {
    dir = TestFiles.createDirectory("store-largest");
    int segment = StoreFormat.defaultSegmentBytes(1L << 30);
    assertEquals(StoreFormat.SEGMENT_BYTES_FOR_MAX_WRITE, segment);
    StoreFormat.mkfs(dir, 1, 8192 + 8L * segment, segment);
    byte[] big = new byte[ShardStore.MAX_WRITE_BYTES];
    new Random(5).nextBytes(big);
    ObjectKey key = new ObjectKey(1, "x".repeat(ObjectKey.MAX_NAME_BYTES));
    long offset = ShardStore.MAX_OBJECT_BYTES - big.length;
    try (ObjectStore store = LogStore.open(dir, StoreConfig.defaults());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults())) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      assertEquals(ShardStore.MAX_WRITE_BYTES, s.maxWriteBytes());
      long records = s.stats().records();
      RealBackendTest.call(
          s,
          queue,
          (StoreCompletion<Void> c) -> s.write(key, offset, MemorySegment.ofArray(big), c));
      assertEquals(records + 1, s.stats().records(), "one write, one record");
      StoreException tooBig = refused(s, queue, key, big.length + 1);
      assertTrue(
          tooBig.getMessage().contains("largest single write of this shard, 16777216 bytes"),
          tooBig.getMessage());
      s.close();
    }
    try (ObjectStore store = LogStore.open(dir, StoreConfig.defaults());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults());
        Arena arena = Arena.ofConfined()) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      MemorySegment into = arena.allocate(big.length);
      int n =
          RealBackendTest.call(
              s, queue, (StoreCompletion<Integer> c) -> s.read(key, offset, into, c));
      assertEquals(big.length, n);
      assertArrayEquals(big, into.toArray(ValueLayout.JAVA_BYTE));
      s.close();
    }
  }

  @Test
  void smallSegmentsLimitTheWriteToWhatOneSegmentHolds() throws IOException {
    dir = TestFiles.createDirectory("store-small-segments");
    StoreFormat.mkfs(dir, 1, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults())) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      long max = s.maxWriteBytes();
      assertTrue(
          max < StoreHarness.SEGMENT_BYTES && max > StoreHarness.SEGMENT_BYTES / 2, "" + max);
      byte[] fits = new byte[(int) max];
      new Random(6).nextBytes(fits);
      ObjectKey key = new ObjectKey(1, "fits");
      RealBackendTest.call(
          s, queue, (StoreCompletion<Void> c) -> s.write(key, 0, MemorySegment.ofArray(fits), c));
      StoreException tooBig = refused(s, queue, key, (int) max + 1);
      assertTrue(tooBig.getMessage().contains("segment"), tooBig.getMessage());
      s.close();
    }
  }

  /** Writes {@code bytes} zeros and returns the INVALID refusal it must get. */
  private static StoreException refused(ShardStore s, IoQueue queue, ObjectKey key, int bytes) {
    StoreException e =
        assertThrows(
            StoreException.class,
            () ->
                RealBackendTest.call(
                    s,
                    queue,
                    (StoreCompletion<Void> c) ->
                        s.write(key, 0, MemorySegment.ofArray(new byte[bytes]), c)));
    assertEquals(StoreException.Code.INVALID, e.code(), e.getMessage());
    return e;
  }
}
