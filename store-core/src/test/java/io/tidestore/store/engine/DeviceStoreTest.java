package io.tidestore.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.TestFiles;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.testing.LoopDevice;
import io.tidestore.store.testing.StoreCalls;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A store on a whole raw block device (a loop device): mkfs sized from the device, data written and
 * read back across a remount on io_uring and FileChannel, fsck clean; a second mkfs of the same
 * device starts empty although the first store's records are still on it.
 */
class DeviceStoreTest {
  private Path scratch;
  private LoopDevice loop;

  @BeforeEach
  void setUp() throws Exception {
    scratch = TestFiles.createDirectory("device-store");
    loop = LoopDevice.create(scratch, 192L << 20);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (loop != null) {
      loop.close();
    }
    TestFiles.deleteRecursively(scratch);
  }

  private static List<ShardStore> mountAll(LogStore store, IoQueue q) throws IOException {
    List<ShardStore> shards = new ArrayList<>();
    for (int s = 0; s < store.shardCount(); s++) {
      shards.add(store.mountShard(s, q, ExtentCacheHook.NONE));
    }
    return shards;
  }

  @Test
  void aStoreOnARawDeviceKeepsItsDataAcrossRemountsAndAFreshMkfsStartsEmpty() throws Exception {
    Path dir = scratch.resolve("data");
    List<String> notes = new ArrayList<>();
    DeviceFormat.mkfs(dir, loop.path(), 2, 0, notes::add);
    assertEquals(
        List.of(StoreLayout.DEVICE_FILE, "lock"),
        Files.list(dir).map(p -> p.getFileName().toString()).sorted().toList(),
        "the data directory keeps only its lock and the device's name");
    byte[][] data = new byte[6][];
    Random r = new Random(9);
    for (IoQueueConfig.Backend backend :
        new IoQueueConfig.Backend[] {
          IoQueueConfig.Backend.AUTO, IoQueueConfig.Backend.FILE_CHANNEL
        }) {
      try (LogStore store = LogStore.open(dir, StoreConfig.defaults());
          IoQueue q = IoQueues.create(IoQueueConfig.defaults().withBackend(backend))) {
        assertTrue(store.layout().onDevice());
        List<ShardStore> shards = mountAll(store, q);
        for (int i = 0; i < data.length; i++) {
          ObjectKey k = new ObjectKey(1, "o" + i);
          ShardStore s = shards.get(store.shardOf(k));
          data[i] = new byte[4096 * (1 + r.nextInt(64)) + r.nextInt(4096)];
          r.nextBytes(data[i]);
          byte[] d = data[i];
          StoreCalls.call(
              s, q, (StoreCompletion<Void> c) -> s.write(k, 0, MemorySegment.ofArray(d), c));
        }
        shards.forEach(ShardStore::close);
      }
    }
    try (LogStore store = LogStore.open(dir, StoreConfig.defaults());
        IoQueue q = IoQueues.create(IoQueueConfig.defaults());
        Arena arena = Arena.ofConfined()) {
      List<ShardStore> shards = mountAll(store, q);
      for (int i = 0; i < data.length; i++) {
        ObjectKey k = new ObjectKey(1, "o" + i);
        ShardStore s = shards.get(store.shardOf(k));
        MemorySegment into = arena.allocate(data[i].length);
        int n = StoreCalls.call(s, q, (StoreCompletion<Integer> c) -> s.read(k, 0, into, c));
        assertArrayEquals(data[i], into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), k.name());
      }
      shards.forEach(ShardStore::close);
    }
    List<String> out = new ArrayList<>();
    assertEquals(0, Fsck.check(dir, out::add), String.join("\n", out));

    // A new store on the same device. mkfs discarded the device here; a device that cannot
    // discard keeps the old store's records, so put them back (all but what mkfs writes:
    // superblocks and checkpoint slot headers): they must never be replayed into the new store.
    Path old = scratch.resolve("old-device.img");
    try (FileChannel dev = FileChannel.open(loop.path(), StandardOpenOption.READ);
        FileChannel copy =
            FileChannel.open(old, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      dev.transferTo(0, dev.size(), copy);
    }
    Path again = scratch.resolve("again");
    DeviceFormat.mkfs(again, loop.path(), 2, 0, line -> {});
    StoreLayout layout = StoreLayout.of(again);
    try (FileChannel dev = FileChannel.open(loop.path(), StandardOpenOption.WRITE);
        FileChannel copy = FileChannel.open(old, StandardOpenOption.READ)) {
      for (int s = 0; s < 2; s++) {
        long base = layout.space(s).base();
        long firstSlot = layout.space(s).slots().get(0).offset();
        long from = base + 2 * 4096; // after the two superblock copies
        copy.transferTo(from, firstSlot - from, dev.position(from));
      }
      dev.force(true);
    }
    try (LogStore store = LogStore.open(again, StoreConfig.defaults());
        IoQueue q = IoQueues.create(IoQueueConfig.defaults())) {
      List<ShardStore> shards = mountAll(store, q);
      for (ShardStore s : shards) {
        ListPage page =
            StoreCalls.call(s, q, (StoreCompletion<ListPage> c) -> s.list(1, "", null, 100, c));
        assertEquals(List.of(), page.keys(), "a fresh store replayed an old store's records");
        assertEquals(0, s.stats().liveBlocks());
      }
      shards.forEach(ShardStore::close);
    }
  }

  @Test
  void mkfsRefusesWhatIsNotABlockDeviceAndADirectoryThatHoldsAStore() throws Exception {
    Path dir = scratch.resolve("data");
    Path file = Files.createFile(scratch.resolve("plain-file"));
    IOException notDevice =
        assertThrows(IOException.class, () -> DeviceFormat.mkfs(dir, file, 2, 0, line -> {}));
    assertTrue(notDevice.getMessage().contains("not a block device"), notDevice.getMessage());
    DeviceFormat.mkfs(dir, loop.path(), 2, 0, line -> {});
    IOException holds =
        assertThrows(
            IOException.class, () -> DeviceFormat.mkfs(dir, loop.path(), 2, 0, line -> {}));
    assertTrue(holds.getMessage().contains("already holds a store"), holds.getMessage());
    assertEquals(false, DeviceFormat.mkfsIfEmpty(dir, loop.path(), 2, line -> {}));
  }
}
