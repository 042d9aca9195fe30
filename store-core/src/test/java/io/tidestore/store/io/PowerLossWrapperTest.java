package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.testing.LoopDevice;
import io.tidestore.store.testing.PowerCut;
import io.tidestore.store.testing.PowerLoss;
import io.tidestore.store.testing.UndoLog;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The power-loss fixture (store-core's test-jar) over a real queue of each backend and a real file:
 * what it counts as durable survives a {@link PowerCut}, everything else is reverted wholly or torn
 * at 512 B, and its undo log stays bounded.
 */
class PowerLossWrapperTest {
  private static final int K64 = 64 << 10;
  private static final int FILE_BYTES = 1 << 20;
  private static final byte OLD = 0x11;

  private Path dir;
  private Path data;
  private IoQueue queue;
  private UndoLog log;
  private IoFile file;
  private AlignedBufferPool pool;
  private final List<IoOpException> failures = new ArrayList<>();
  private final List<MemorySegment> inUse = new ArrayList<>();
  private int outstanding;

  private final IoCompletion counting =
      new IoCompletion() {
        @Override
        public void completed(long tag, int result) {
          outstanding--;
        }

        @Override
        public void failed(long tag, IoOpException error) {
          outstanding--;
          failures.add(error);
        }
      };

  private void open(IoQueueConfig.Backend backend) throws IOException {
    dir = TestFiles.createDirectory("tidestore-powerloss-");
    data = dir.resolve("data");
    byte[] old = new byte[FILE_BYTES];
    Arrays.fill(old, OLD);
    Files.write(data, old);
    attach(backend, data);
  }

  /** A queue of {@code backend}, wrapped by the fixture, with {@code target} open on it. */
  private void attach(IoQueueConfig.Backend backend, Path target) throws IOException {
    log = UndoLog.create(dir.resolve("undo"));
    queue =
        PowerLoss.wrap(
            IoQueues.create(IoQueueConfig.defaults().withCapacity(16).withBackend(backend)), log);
    file = queue.open(target, IoFile.Mode.READ_WRITE);
    pool = AlignedBufferPool.allocate(K64, 16);
  }

  @AfterEach
  void tearDown() throws IOException {
    if (queue != null) {
      queue.close();
    }
    if (pool != null) {
      pool.close();
    }
    TestFiles.deleteRecursively(dir);
  }

  private MemorySegment filled(int length, int value) {
    MemorySegment b = pool.acquire();
    inUse.add(b);
    return b.asSlice(0, length).fill((byte) value);
  }

  private void write(long offset, int length, int value) {
    outstanding++;
    queue.write(file, offset, filled(length, value), counting, 0);
  }

  private void writeDurable(long offset, int length, int value) {
    outstanding++;
    queue.writeDurable(file, offset, filled(length, value), counting, 0);
  }

  private void sync() {
    outstanding++;
    queue.sync(file, counting, 0);
  }

  /** Submits what is prepared and waits for every completion; buffers go back to the pool. */
  private void drain() throws IOException {
    queue.submit();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (outstanding > 0 && System.nanoTime() < deadline) {
      queue.await(100_000_000L);
    }
    assertEquals(0, outstanding, "operations did not complete");
    inUse.forEach(pool::release);
    inUse.clear();
    assertTrue(failures.isEmpty(), failures.toString());
  }

  /** Kills the "process": closes the queue without any sync, then cuts. */
  private PowerCut.Result cut(PowerCut.Tear tear) throws IOException {
    queue.close();
    queue = null;
    return PowerCut.apply(dir.resolve("undo"), tear, 42);
  }

  private static void assertHolds(byte[] disk, long offset, int length, int value, String what) {
    for (int i = 0; i < length; i++) {
      if (disk[(int) offset + i] != (byte) value) {
        throw new AssertionError(
            what + ": byte " + (offset + i) + " is " + disk[(int) offset + i] + ", not " + value);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = IoQueueConfig.Backend.class,
      names = {"AUTO", "FILE_CHANNEL"})
  void onlyWhatTheLayerMadeDurableSurvives(IoQueueConfig.Backend backend) throws Exception {
    open(backend);
    write(0, K64, 0xB1);
    drain();
    sync(); // issued after the write completed: covers it
    drain();
    writeDurable(K64, K64, 0xC1);
    outstanding++;
    queue.writeThenSync(file, 2L * K64, filled(K64, 0xD1), counting, 0);
    drain();
    write(3L * K64, K64, 0xE1);
    sync(); // prepared with the write, before its completion: does not cover it
    drain();
    write(4L * K64, K64, 0xA1); // completed, never synced
    drain();
    assertTrue(log.pendingWrites() == 2, "pending: " + log.pendingWrites());

    PowerCut.Result r = cut(PowerCut.Tear.WHOLE);
    assertEquals(3, r.writesDurable(), r.toString());
    assertEquals(2, r.writesCut(), r.toString());
    assertEquals(2L * K64 / 512, r.sectorsReverted(), r.toString());
    byte[] disk = Files.readAllBytes(data);
    assertHolds(disk, 0, K64, 0xB1, "written, then synced");
    assertHolds(disk, K64, K64, 0xC1, "durable write");
    assertHolds(disk, 2L * K64, K64, 0xD1, "write+sync");
    assertHolds(disk, 3L * K64, K64, OLD, "synced only by a sync issued in flight");
    assertHolds(disk, 4L * K64, K64, OLD, "never synced");
    assertHolds(disk, 5L * K64, FILE_BYTES - 5 * K64, OLD, "never written");
    assertTrue(Files.notExists(dir.resolve("undo").resolve("undo.log")), "the log is used up");
  }

  @Test
  void aTornWriteLeavesEachSectorOldOrNew() throws Exception {
    open(IoQueueConfig.Backend.AUTO);
    write(0, K64, 0xA1);
    drain();
    PowerCut.Result r = cut(PowerCut.Tear.SECTORS);
    assertEquals(K64 / 512, r.sectorsReverted() + r.sectorsKept(), r.toString());
    assertTrue(r.sectorsReverted() > 0 && r.sectorsKept() > 0, "torn: " + r);
    byte[] disk = Files.readAllBytes(data);
    int newSectors = 0;
    for (int s = 0; s < K64 / 512; s++) {
      byte first = disk[s * 512];
      assertTrue(first == OLD || first == (byte) 0xA1, "sector " + s + " holds " + first);
      assertHolds(disk, s * 512L, 512, first, "sector " + s + " is whole");
      newSectors += first == OLD ? 0 : 1;
    }
    assertEquals(r.sectorsKept(), newSectors);
  }

  /** An older write never reverted over a newer durable one: from the log, or after compaction. */
  @ParameterizedTest(name = "compacted: {0}")
  @ValueSource(booleans = {false, true})
  void anOlderWriteIsNeverRevertedOverANewerDurableOne(boolean compacted) throws Exception {
    open(IoQueueConfig.Backend.AUTO);
    write(0, K64, 0xA1); // pending for good
    drain();
    writeDurable(K64 / 2, K64, 0xB1); // overwrites the second half of it, durably
    drain();
    long logged = 0;
    while (compacted && log.compactions() < 2) {
      for (int i = 0; i < 8; i++) {
        writeDurable(2L * K64 + i * (long) K64, K64, 0xC1);
      }
      drain();
      logged += 8L * K64;
      assertTrue(logged < 64L << 20, "the log is never compacted");
    }
    assertTrue(Files.size(log.file()) < 9L << 20, "log size " + Files.size(log.file()));
    assertEquals(1, log.pendingWrites());

    PowerCut.Result r = cut(PowerCut.Tear.SECTORS);
    assertEquals(1, r.writesCut(), r.toString());
    byte[] disk = Files.readAllBytes(data);
    assertHolds(disk, K64 / 2, K64, 0xB1, "the newer durable write");
    if (compacted) {
      assertHolds(disk, 2L * K64, 8 * K64, 0xC1, "durable writes");
    }
    for (int s = 0; s < K64 / 2 / 512; s++) {
      byte first = disk[s * 512];
      assertTrue(first == OLD || first == (byte) 0xA1, "sector " + s + " holds " + first);
    }
  }

  @Test
  void aStoreOnABlockDeviceIsCutLikeOneOnFiles() throws Exception {
    dir = TestFiles.createDirectory("tidestore-powerloss-");
    try (LoopDevice device = LoopDevice.create(dir, 16L << 20)) {
      attach(IoQueueConfig.Backend.AUTO, device.path());
      assertTrue(file.isBlockDevice(), device.path() + " is a block device");
      writeDurable(0, K64, 0xC1);
      write(K64, K64, 0xA1);
      drain();
      PowerCut.Result r = cut(PowerCut.Tear.WHOLE);
      assertEquals(1, r.writesCut(), r.toString());
      ByteBuffer disk = ByteBuffer.allocate(2 * K64);
      try (FileChannel ch = FileChannel.open(device.path(), StandardOpenOption.READ)) {
        while (disk.hasRemaining()) {
          assertTrue(ch.read(disk, disk.position()) > 0, "the device is shorter than 128 KiB");
        }
      }
      assertHolds(disk.array(), 0, K64, 0xC1, "durable write");
      assertHolds(disk.array(), K64, K64, 0, "never synced");
    }
  }

  @Test
  void aLogLeftByAnEarlierProcessMustBeAppliedOrDiscardedFirst() throws Exception {
    open(IoQueueConfig.Backend.AUTO);
    write(0, K64, 0xA1);
    drain();
    Path undo = dir.resolve("undo");
    IOException e = assertThrows(IOException.class, () -> UndoLog.create(undo));
    assertTrue(e.getMessage().contains("earlier process"), e.getMessage());
    PowerCut.discard(undo);
    assertTrue(Files.exists(UndoLog.create(undo).file()));
  }

  @Test
  void theProviderLeavesQueuesAloneWithoutItsProperty() throws Exception {
    assertEquals(null, System.getProperty(PowerLoss.PROPERTY));
    try (IoQueue plain = IoQueues.create(IoQueueConfig.defaults().withCapacity(4))) {
      assertSame(plain, new PowerLoss().wrap(plain));
    }
    open(IoQueueConfig.Backend.AUTO);
    assertTrue(queue.describe().startsWith("power-loss undo log ("), queue.describe());
  }
}
