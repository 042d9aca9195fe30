package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.testing.IoFault;
import io.tidestore.store.testing.SimIoQueue;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Device faults other than a write EIO (IoErrorTest): short transfers, read EIO, ENOSPC. */
class DeviceFaultTest {
  @TempDir Path dir;

  private static byte[] filled(int length, int value) {
    byte[] b = new byte[length];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static void until(StoreHarness h, BooleanSupplier done, String what) throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      h.pass();
    }
  }

  @Test
  void shortJournalWriteIsNeverAcknowledgedAndTurnsTheShardReadOnly() throws IOException {
    try (StoreHarness h =
        new StoreHarness(
            dir, 11, StoreHarness.testConfig().withJournalFlush(JournalFlush.RECORD_DSYNC))) {
      ObjectKey a = new ObjectKey(1, "a");
      byte[] before = filled(32 << 10, 1);
      h.write(a, 0, before);
      ((SimIoQueue) h.queue)
          .faultWhen((op, path) -> op.name().startsWith("WRITE") ? IoFault.SHORT : null);
      StoreException e =
          assertThrows(StoreException.class, () -> h.write(a, 0, filled(32 << 10, 2)));
      assertEquals(StoreException.Code.IO_ERROR, e.code(), e.getMessage());
      assertTrue(h.shard.readOnly());
      assertTrue(
          h.shard.stats().readOnlyReason().contains("short write"),
          h.shard.stats().readOnlyReason());
      assertArrayEquals(before, h.read(a, 0, before.length), "the failed write is not visible");
      h.crashAndRemount();
      assertFalse(h.shard.readOnly(), "a remount without the fault writes again");
      assertArrayEquals(before, h.read(a, 0, before.length), "replay drops the torn record");
    }
  }

  @Test
  void readEioFailsThatReadOnlyAndTheShardKeepsWriting() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 12, StoreHarness.testConfig())) {
      ObjectKey a = new ObjectKey(1, "a");
      byte[] data = filled(8192, 3);
      h.write(a, 0, data);
      SimIoQueue q = (SimIoQueue) h.queue;
      q.faultWhen((op, path) -> op == IoOpException.Op.READ ? IoFault.EIO : null);
      StoreException e = assertThrows(StoreException.class, () -> h.read(a, 0, 8192));
      assertEquals(StoreException.Code.IO_ERROR, e.code(), e.getMessage());
      assertFalse(h.shard.readOnly(), "a read error fails that read only");
      h.write(a, 8192, filled(4096, 4));
      q.faultWhen((op, path) -> op == IoOpException.Op.READ ? IoFault.SHORT : null);
      e = assertThrows(StoreException.class, () -> h.read(a, 0, 8192));
      assertEquals(StoreException.Code.IO_ERROR, e.code(), "a short read is not served");
      q.faultWhen((op, path) -> null);
      assertArrayEquals(data, h.read(a, 0, 8192));
      assertNull(h.shard.stats().readOnlyReason());
    }
  }

  /** Checkpoint writes meet ENOSPC while {@code full[0]}: the file system under them is full. */
  private static void checkpointsFindNoRoomWhile(StoreHarness h, boolean[] full) {
    ((SimIoQueue) h.queue)
        .faultWhen(
            (op, path) ->
                full[0]
                        && path.getFileName().toString().contains("ckpt")
                        && op != IoOpException.Op.READ
                    ? IoFault.ENOSPC
                    : null);
  }

  @Test
  void checkpointFindingTheFileSystemFullIsRetriedAndWritesGoOn() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 13, StoreHarness.testConfig())) {
      boolean[] full = {true};
      checkpointsFindNoRoomWhile(h, full);
      ObjectKey a = new ObjectKey(1, "a");
      long checkpointsBefore = h.shard.stats().checkpoints();
      // Well past checkpointEveryBytes (512 KiB in the test config), each write acknowledged.
      for (int i = 0; i < 48; i++) {
        h.write(a, (i % 16) * 32768L, filled(32 << 10, i));
      }
      assertFalse(h.shard.readOnly(), "a full file system under the checkpoints is not fatal");
      assertTrue(h.shard.stats().checkpointsDeferred() > 0, "a checkpoint was tried and deferred");
      assertEquals(checkpointsBefore, h.shard.stats().checkpoints());
      full[0] = false;
      until(h, () -> h.shard.stats().checkpoints() > checkpointsBefore, "a retry lands");
      h.crashAndRemount();
      for (int i = 32; i < 48; i++) {
        assertArrayEquals(filled(32 << 10, i), h.read(a, (i % 16) * 32768L, 32 << 10));
      }
    }
  }

  @Test
  void closeWritesTheCheckpointAFullFileSystemDeferredWithoutWaitingForTheRetry()
      throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 14, StoreHarness.testConfig())) {
      boolean[] full = {true};
      checkpointsFindNoRoomWhile(h, full);
      ObjectKey a = new ObjectKey(1, "a");
      for (int i = 0; i < 24; i++) {
        h.write(a, (i % 16) * 32768L, filled(32 << 10, i));
      }
      assertTrue(h.shard.stats().checkpointsDeferred() > 0, "a checkpoint was deferred");
      // Room is made and the daemon stops before the retry is due: closing is the last chance to
      // write the checkpoint, so it tries at once rather than leave the journal to replay.
      full[0] = false;
      h.remount();
      assertEquals(0, ((LogShard) h.shard).replayedRecords(), "the close wrote a checkpoint");
      for (int i = 8; i < 24; i++) {
        assertArrayEquals(filled(32 << 10, i), h.read(a, (i % 16) * 32768L, 32 << 10));
      }
    }
  }
}
