package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.engine.Fsck;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.TestFiles;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FsckTest {
  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    TestFiles.deleteRecursively(dir);
  }

  @Test
  void cleanStorePassesAndAFlippedDataByteIsReported() throws IOException {
    dir = TestFiles.createDirectory("fsck");
    StoreFormat.mkfs(dir, 1, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    long location;
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue =
            IoQueues.create(
                IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.FILE_CHANNEL))) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      for (int i = 0; i < 10; i++) {
        ObjectKey k = new ObjectKey(1, "f" + i);
        RealBackendTest.call(
            s,
            queue,
            (StoreCompletion<Void> c) -> s.write(k, 0, MemorySegment.ofArray(new byte[9000]), c));
      }
      ObjectEntry e = ((LogShard) s).index().get(new ObjectKey(1, "f3"));
      location = BlockEntry.location(e.block(1));
      s.close();
    }
    List<String> out = new ArrayList<>();
    assertEquals(0, Fsck.check(dir, out::add), String.join("\n", out));
    try (FileChannel ch =
        FileChannel.open(StoreLayout.of(dir).space(0).path(), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0x42}), location * Blocks.SIZE + 100);
    }
    out.clear();
    int faults = Fsck.check(dir, out::add);
    assertEquals(1, faults, String.join("\n", out));
    assertTrue(String.join("\n", out).contains("fails its crc32c"), String.join("\n", out));
  }
}
