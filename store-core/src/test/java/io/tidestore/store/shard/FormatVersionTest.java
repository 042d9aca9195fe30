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
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.record.SuperblockDescriptor;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Store format 2 (PUNCH records) mounts format 1 stores and upgrades both superblock copies, so an
 * older build refuses the store rather than mount a stale copy; a newer format is refused, never
 * misread.
 */
class FormatVersionTest {
  @TempDir Path dir;

  private static final CRC32C CRC = new CRC32C();

  /** Rewrites both superblock copies of the shard file at {@code path} with format {@code v}. */
  private static void setVersion(Path path, short v) throws IOException {
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      for (int c = 0; c < 2; c++) {
        ByteBuffer buf = ByteBuffer.allocate(Blocks.SIZE);
        ch.read(buf, (long) c * Blocks.SIZE);
        MemorySegment b = MemorySegment.ofArray(buf.array());
        b.set(Blocks.SHORT, SuperblockDescriptor.VERSION_OFFSET, v);
        b.set(
            Blocks.INT,
            SuperblockDescriptor.CRC_OFFSET,
            Blocks.crc(CRC, b, 0, SuperblockDescriptor.CRC_OFFSET));
        ch.write(ByteBuffer.wrap(buf.array()), (long) c * Blocks.SIZE);
      }
    }
  }

  private static short[] versions(Path path) throws IOException {
    short[] v = new short[2];
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      for (int c = 0; c < 2; c++) {
        ByteBuffer buf = ByteBuffer.allocate(Blocks.SIZE);
        ch.read(buf, (long) c * Blocks.SIZE);
        v[c] = Superblock.version(MemorySegment.ofArray(buf.array()));
      }
    }
    return v;
  }

  /** Writes or reads one object through a real (FileChannel) queue on the real files. */
  private byte[] withShard(ObjectKey k, byte[] write) throws IOException {
    try (ObjectStore store = LogStore.open(dir, StoreHarness.testConfig());
        IoQueue queue =
            IoQueues.create(
                IoQueueConfig.defaults().withBackend(IoQueueConfig.Backend.FILE_CHANNEL));
        Arena arena = Arena.ofConfined()) {
      ShardStore s = store.mountShard(0, queue, ExtentCacheHook.NONE);
      try {
        if (write != null) {
          RealBackendTest.call(
              s,
              queue,
              (StoreCompletion<Void> c) -> s.write(k, 0, MemorySegment.ofArray(write), c));
          return write;
        }
        MemorySegment into = arena.allocate(1 << 16);
        int n =
            RealBackendTest.call(s, queue, (StoreCompletion<Integer> c) -> s.read(k, 0, into, c));
        return into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
      } finally {
        s.close();
      }
    }
  }

  @Test
  void aFormatOneStoreMountsAndBothCopiesAreUpgraded() throws IOException {
    StoreFormat.mkfs(dir, 1, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    ObjectKey k = new ObjectKey(1, "kept");
    byte[] data = ShardBasicsTest.bytes(9000, 1);
    withShard(k, data);
    Path shard = StoreLayout.of(dir).space(0).path();
    setVersion(shard, (short) 1);
    assertArrayEquals(data, withShard(k, null));
    short[] v = versions(shard);
    assertEquals(SuperblockDescriptor.VERSION, v[0], "copy 0 left at the old format");
    assertEquals(SuperblockDescriptor.VERSION, v[1], "copy 1 left at the old format");
  }

  @Test
  void aNewerFormatIsRefusedWithTheReason() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 1, StoreHarness.testConfig())) {
      h.shard.close();
      h.shard = null;
      h.store.close();
      setVersion(StoreLayout.of(dir).space(0).path(), (short) (SuperblockDescriptor.VERSION + 1));
      IOException e = assertThrows(IOException.class, h::mount);
      assertTrue(e.getMessage().contains("newer Tidestore"), e.getMessage());
      h.store = null;
    }
    MemorySegment block = MemorySegment.ofArray(new byte[Blocks.SIZE]);
    new Superblock(0, 1, 1 << 24, 1 << 20, 8, 8192, 1, 1, 1).encode(block, CRC);
    block.set(Blocks.SHORT, SuperblockDescriptor.VERSION_OFFSET, (short) 0);
    assertThrows(CorruptRecordException.class, () -> Superblock.decode(block, CRC));
  }
}
