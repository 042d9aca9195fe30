package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.DataDirLock;
import io.tidestore.store.DataDirLockedException;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.Fsck;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.io.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A mkfs killed part way (kill -9, power cut) leaves its marker, {@code mkfs-incomplete}: opening
 * (the daemon, fsck) refuses the directory with a message that says what to do, and mkfs and the
 * daemon's first-start mkfs wipe the leftovers and format again. A complete store is never wiped.
 */
class InterruptedMkfsTest {
  private static final long SHARD_BYTES = 8L << 20;
  private static final int SEGMENT_BYTES = 256 << 10;

  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    TestFiles.deleteRecursively(dir);
  }

  /**
   * What mkfs runs killed while preallocating leave: marker, zeros, no superblocks; a volume, and
   * the shard files of the files layout (an older build's mkfs, or {@code --layout files}).
   */
  private static void leaveInterruptedMkfs(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(ShardFiles.mkfsMarker(dir), "");
    Files.write(ShardFiles.volume(dir), new byte[2 << 20]);
    Files.write(ShardFiles.data(dir, 0), new byte[3 << 20]);
    Files.write(ShardFiles.data(dir, 1), new byte[1 << 20]);
    Files.write(ShardFiles.data(dir, 2), new byte[0]);
  }

  private static void assertRefusedAsInterrupted(Path dir, IOException e) {
    assertTrue(
        e.getMessage().contains("an interrupted mkfs left " + dir + " incomplete"), e.getMessage());
    assertTrue(e.getMessage().contains("rerun mkfs"), e.getMessage());
  }

  private static void assertCompleteStore(Path dir, int shards) throws IOException {
    assertFalse(Files.exists(ShardFiles.mkfsMarker(dir)), "marker left behind");
    try (ObjectStore store = LogStore.open(dir, StoreConfig.defaults())) {
      assertEquals(shards, store.shardCount());
    }
    List<String> out = new ArrayList<>();
    assertEquals(0, Fsck.check(dir, out::add), String.join("\n", out));
  }

  @Test
  void openAndFsckRefuseWhatAnInterruptedMkfsLeftAndMkfsRedoesIt() throws IOException {
    dir = TestFiles.createDirectory("mkfs-interrupted");
    leaveInterruptedMkfs(dir);

    assertRefusedAsInterrupted(
        dir, assertThrows(IOException.class, () -> LogStore.open(dir, StoreConfig.defaults())));
    assertRefusedAsInterrupted(
        dir, assertThrows(IOException.class, () -> Fsck.check(dir, line -> {})));

    List<String> notes = new ArrayList<>();
    StoreFormat.mkfs(dir, 2, SHARD_BYTES, SEGMENT_BYTES, notes::add);
    assertEquals(1, notes.size(), notes.toString());
    assertTrue(notes.get(0).contains("an interrupted mkfs left " + dir), notes.get(0));
    assertFalse(Files.exists(ShardFiles.data(dir, 0)), "shard-0 of the interrupted mkfs");
    assertFalse(Files.exists(ShardFiles.data(dir, 2)), "shard-2 of the interrupted mkfs");
    long volume = Files.size(ShardFiles.volume(dir));
    assertTrue(volume > SHARD_BYTES && volume <= 2 * SHARD_BYTES, "the new volume: " + volume);
    assertCompleteStore(dir, 2);
  }

  @Test
  void theDaemonsFirstStartMkfsRedoesAnInterruptedOne() throws IOException {
    dir = TestFiles.createDirectory("mkfs-interrupted");
    leaveInterruptedMkfs(dir);
    Files.write(ShardFiles.checkpoint(dir, 2, 0), new byte[4096]);

    List<String> notes = new ArrayList<>();
    assertTrue(StoreFormat.mkfsIfEmpty(dir, 1, SHARD_BYTES, SEGMENT_BYTES, notes::add));
    assertEquals(1, notes.size(), notes.toString());
    assertFalse(Files.exists(ShardFiles.data(dir, 1)));
    assertFalse(Files.exists(ShardFiles.checkpoint(dir, 2, 0)));
    assertCompleteStore(dir, 1);
    // The next start finds the store it made and keeps it.
    assertFalse(StoreFormat.mkfsIfEmpty(dir, 4, SHARD_BYTES, SEGMENT_BYTES, notes::add));
    assertCompleteStore(dir, 1);
  }

  @Test
  void aCompleteStoreIsNeverWiped() throws IOException {
    dir = TestFiles.createDirectory("mkfs-complete");
    List<String> notes = new ArrayList<>();
    StoreFormat.mkfs(dir, 2, SHARD_BYTES, SEGMENT_BYTES, notes::add);
    assertEquals(List.of(), notes);
    assertCompleteStore(dir, 2);
    byte[] superblocks = superblocks(dir);

    IOException e =
        assertThrows(
            IOException.class,
            () -> StoreFormat.mkfs(dir, 1, SHARD_BYTES, SEGMENT_BYTES, notes::add));
    assertTrue(e.getMessage().contains("already holds a store"), e.getMessage());
    assertFalse(StoreFormat.mkfsIfEmpty(dir, 1, SHARD_BYTES, SEGMENT_BYTES, notes::add));
    assertEquals(0, StoreFormat.interruptedMkfsBytes(dir));
    assertEquals(List.of(), notes);
    assertArrayEquals(superblocks, superblocks(dir));
    assertCompleteStore(dir, 2);
  }

  @Test
  void aMkfsUnderWayHoldsTheLockSoNobodyWipesIt() throws IOException {
    dir = TestFiles.createDirectory("mkfs-locked");
    leaveInterruptedMkfs(dir);
    try (DataDirLock running = DataDirLock.acquire(dir)) {
      assertThrows(
          DataDirLockedException.class,
          () -> StoreFormat.mkfs(dir, 1, SHARD_BYTES, SEGMENT_BYTES, line -> {}));
      assertThrows(
          DataDirLockedException.class,
          () -> StoreFormat.mkfsIfEmpty(dir, 1, SHARD_BYTES, SEGMENT_BYTES, line -> {}));
      assertThrows(DataDirLockedException.class, () -> LogStore.open(dir, StoreConfig.defaults()));
    }
    assertTrue(Files.exists(ShardFiles.mkfsMarker(dir)));
    assertEquals(3 << 20, Files.size(ShardFiles.data(dir, 0)));
    assertEquals((2 << 20) + (3 << 20) + (1 << 20), StoreFormat.interruptedMkfsBytes(dir));
  }

  /**
   * The real thing: mkfs in a child JVM, SIGKILLed as it creates the volume or once the volume
   * holds a shard's worth of bytes, several times. Each time the directory is either a complete
   * store or refused as an interrupted mkfs (never a store without valid superblocks), and a mkfs
   * of it succeeds.
   */
  @Test
  void mkfsKilledWhileFormattingIsAlwaysRecognisedAndRedone() throws Exception {
    dir = TestFiles.createDirectory("mkfs-kill9");
    int interrupted = 0;
    for (int round = 0; round < 4; round++) {
      Path data = dir.resolve("round-" + round);
      Files.createDirectories(data);
      Process child = null;
      try (WatchService watcher = data.getFileSystem().newWatchService()) {
        data.register(
            watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        child = startMkfsChild(data);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        // The kill lands as the volume appears or once it has grown by a shard's worth
        // (alternate rounds): a point in formatting, not a wall-clock delay, so it lands inside
        // mkfs on any disk.
        Path volume = ShardFiles.volume(data);
        long grown = round % 2 == 0 ? 0 : CHILD_SHARD_BYTES;
        while (!(Files.exists(volume) && sizeOf(volume) >= grown)
            && child.isAlive()
            && System.nanoTime() < deadline) {
          WatchKey key = watcher.poll(100, TimeUnit.MILLISECONDS);
          if (key != null) {
            key.pollEvents();
            key.reset();
          }
        }
      } finally {
        if (child != null) {
          child.destroyForcibly();
          child.waitFor(10, TimeUnit.SECONDS);
        }
      }
      if (Files.exists(ShardFiles.mkfsMarker(data))) {
        interrupted++;
        assertRefusedAsInterrupted(
            data,
            assertThrows(IOException.class, () -> LogStore.open(data, StoreConfig.defaults())));
        List<String> notes = new ArrayList<>();
        StoreFormat.mkfs(data, 2, CHILD_SHARD_BYTES, SEGMENT_BYTES, notes::add);
        assertEquals(1, notes.size(), notes.toString());
      }
      assertCompleteStore(data, 2);
    }
    assertTrue(interrupted > 0, "no round killed the child mid-mkfs");
  }

  private static final long CHILD_SHARD_BYTES = 128L << 20;

  private static Process startMkfsChild(Path data) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MkfsChild.class.getName());
    command.add(data.toString());
    return new ProcessBuilder(command).inheritIO().start();
  }

  /** The child: one mkfs of 2 shards of {@link #CHILD_SHARD_BYTES}. */
  static final class MkfsChild {
    public static void main(String[] args) throws IOException {
      StoreFormat.mkfs(Path.of(args[0]), 2, CHILD_SHARD_BYTES, SEGMENT_BYTES);
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1; // removed meanwhile
    }
  }

  private static byte[] superblocks(Path dir) throws IOException {
    byte[] all = new byte[0];
    StoreLayout layout = StoreLayout.of(dir);
    for (int s = 0; s < 2; s++) {
      ShardSpace space = layout.space(s);
      try (var in = Files.newInputStream(space.path())) {
        in.skipNBytes(space.base());
        byte[] two = in.readNBytes(8192);
        byte[] next = new byte[all.length + two.length];
        System.arraycopy(all, 0, next, 0, all.length);
        System.arraycopy(two, 0, next, all.length, two.length);
        all = next;
      }
    }
    return all;
  }
}
