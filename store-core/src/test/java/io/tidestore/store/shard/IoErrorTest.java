package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IoErrorTest {
  @TempDir Path dir;

  @Test
  void failedJournalWriteFailsItsBatchesLeavesIndexAndGoesReadOnly() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 7, StoreHarness.testConfig())) {
      ObjectKey a = new ObjectKey(1, "a");
      byte[] before = new byte[5000];
      before[0] = 1;
      h.write(a, 0, before);
      ((SimIoQueue) h.queue).failWhen(op -> op == IoOpException.Op.WRITE_DURABLE);
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
