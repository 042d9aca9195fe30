package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.testing.SimIoQueue;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IoErrorTest {
  @TempDir Path dir;

  /**
   * Each way a journal record becomes durable, failed at each of its I/O steps: the RWF_DSYNC
   * write; the plain write of the shared-fdatasync mode; and that mode's fdatasync, which fails
   * every record it covers although their writes succeeded.
   */
  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(JournalFlush.RECORD_DSYNC, IoOpException.Op.WRITE_DURABLE),
        Arguments.of(JournalFlush.SHARED_FDATASYNC, IoOpException.Op.WRITE),
        Arguments.of(JournalFlush.SHARED_FDATASYNC, IoOpException.Op.SYNC));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void failedJournalWriteFailsItsBatchesLeavesIndexAndGoesReadOnly(
      JournalFlush flush, IoOpException.Op failing) throws IOException {
    try (StoreHarness h =
        new StoreHarness(dir, 7, StoreHarness.testConfig().withJournalFlush(flush))) {
      ObjectKey a = new ObjectKey(1, "a");
      byte[] before = new byte[5000];
      before[0] = 1;
      h.write(a, 0, before);
      ((SimIoQueue) h.queue).failWhen(op -> op == failing);
      List<StoreException> failures = new ArrayList<>();
      int[] done = {0};
      for (int i = 0; i < 5; i++) {
        h.shard.write(
            a,
            10_000 + i * 4096L,
            MemorySegment.ofArray(new byte[4096]),
            (v, e) -> {
              done[0]++;
              if (e != null) {
                failures.add(e);
              }
            });
        // A batch per write, all in flight together (max 4) before any completion is reaped.
        h.shard.endOfPass();
      }
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (done[0] < 5 && System.nanoTime() < deadline) {
        h.pass();
      }
      assertEquals(5, failures.size(), "every write of the failed batches fails");
      for (StoreException e : failures) {
        assertEquals(StoreException.Code.IO_ERROR, e.code(), e.getMessage());
      }
      assertTrue(h.shard.readOnly());
      ObjectStat st = h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(a, c));
      assertEquals(5000, st.size(), "index unchanged");
      assertArrayEquals(before, h.read(a, 0, 5000), "reads keep working");
      StoreException ro = assertThrows(StoreException.class, () -> h.write(a, 0, new byte[1]));
      assertEquals(StoreException.Code.READ_ONLY, ro.code());
      assertNotNull(ro.getMessage());
      assertFalse(ro.getMessage().isEmpty());
    }
  }
}
