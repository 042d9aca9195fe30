package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.IndexMemory;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryBudgetExceededException;
import io.tidestore.store.memory.MemoryUse;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shard's I/O buffers and index are charged to the memory budget exactly, and given back. */
class ShardMemoryTest {
  @TempDir Path dir;

  static final long FIXED =
      ShardMemory.fixedIoBytes(StoreHarness.testConfig(), StoreHarness.SEGMENT_BYTES);

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static StoreHarness harness(Path dir, MemoryBudget budget) throws IOException {
    return new StoreHarness(dir, 7, StoreHarness.testConfig(), ExtentCacheHook.NONE, budget);
  }

  @Test
  void mountReservesTheFixedBuffersAndCloseGivesEverythingBack() throws IOException {
    MemoryBudget budget = new MemoryBudget(1L << 30);
    StoreHarness h = harness(dir, budget);
    try {
      assertEquals(FIXED, budget.reservedBytes(MemoryUse.IO_BUFFERS));
      assertEquals(IndexMemory.STEP, budget.reservedBytes(MemoryUse.INDEX));
      assertEquals(0, budget.reservedBytes(MemoryUse.CACHE));

      // A write larger than a batch buffer gets a batch of its own, charged while it is written.
      ObjectKey big = new ObjectKey(1, "big");
      byte[] bigData = bytes(100 << 10, 1);
      h.write(big, 0, bigData);
      // Interleaved one-block writes leave "frag" in 48 runs: more than the read pool's buffers.
      ObjectKey frag = new ObjectKey(1, "frag");
      ObjectKey other = new ObjectKey(1, "other");
      byte[] fragData = bytes(48 * 4096, 2);
      for (int b = 0; b < 48; b++) {
        h.write(
            frag,
            (long) b * 4096,
            java.util.Arrays.copyOfRange(fragData, b * 4096, (b + 1) * 4096));
        h.write(other, (long) b * 4096, bytes(4096, 100 + b));
      }
      assertArrayEquals(bigData, h.read(big, 0, bigData.length));
      assertArrayEquals(fragData, h.read(frag, 0, fragData.length));
      h.call((StoreCompletion<Void> c) -> h.shard.remove(other, c));
      h.awaitIdle();
      assertEquals(FIXED, budget.reservedBytes(MemoryUse.IO_BUFFERS), "transient batches freed");
      LogShard shard = (LogShard) h.shard;
      assertEquals(shard.index().recountFootprintBytes(), shard.index().footprintBytes());

      h.remount();
      assertEquals(FIXED, budget.reservedBytes(MemoryUse.IO_BUFFERS));
      assertArrayEquals(fragData, h.read(frag, 0, fragData.length));
    } finally {
      h.close();
    }
    assertEquals(0, budget.reservedBytes(), "every reservation is released at shard close");
  }

  @Test
  void aLimitBelowTheShardsBuffersFailsTheMountAndLeavesNothingReserved() throws IOException {
    MemoryBudget roomy = new MemoryBudget(1L << 30);
    StoreHarness h = harness(dir, roomy);
    try {
      h.write(new ObjectKey(1, "a"), 0, bytes(4096, 3));
      h.shard.close();
      h.shard = null;
      assertEquals(0, roomy.reservedBytes());
      MemoryBudget tight = new MemoryBudget(FIXED - 4096);
      h.budget = tight;
      h.store.close();
      MemoryBudgetExceededException e = assertThrows(MemoryBudgetExceededException.class, h::mount);
      assertTrue(e.getMessage().contains("I/O buffers of shard 0"), e.getMessage());
      assertTrue(e.getMessage().contains("--memory-limit"), e.getMessage());
      assertEquals(0, tight.reservedBytes(), "a failed mount gives back what it took");
    } finally {
      h.close();
    }
  }

  @Test
  void anIndexAtTheLimitRefusesNewObjectsWhileExistingOnesKeepWorking() throws IOException {
    // Room for the buffers, the index's first step and some journal growth, not a second step.
    MemoryBudget budget = new MemoryBudget(FIXED + IndexMemory.STEP + (256 << 10));
    StoreHarness h = harness(dir, budget);
    try {
      String pad = "n".repeat(300);
      List<ObjectKey> created = new ArrayList<>();
      StoreException refused = null;
      for (int group = 0; refused == null && group < 100; group++) {
        List<ObjectKey> keys = new ArrayList<>();
        StoreException[] errors = new StoreException[64];
        int[] done = {0};
        for (int i = 0; i < 64; i++) {
          ObjectKey k = new ObjectKey(1, pad + "-" + group + "-" + i);
          keys.add(k);
          int slot = i;
          h.shard.write(
              k,
              0,
              MemorySegment.ofArray(new byte[0]),
              (v, err) -> {
                errors[slot] = err;
                done[0]++;
              });
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (done[0] < 64) {
          assertTrue(System.nanoTime() < deadline, "creates did not complete");
          h.pass();
        }
        for (int i = 0; i < 64; i++) {
          if (errors[i] == null) {
            created.add(keys.get(i));
          } else if (refused == null) {
            refused = errors[i];
          }
        }
      }
      assertNotNull(refused, "the index never reached the limit");
      assertEquals(StoreException.Code.NO_MEMORY, refused.code(), refused.getMessage());
      assertTrue(refused.getMessage().contains("--memory-limit"), refused.getMessage());
      assertTrue(created.size() > 400, "created " + created.size());
      assertEquals(IndexMemory.STEP, budget.reservedBytes(MemoryUse.INDEX));

      // Existing objects: read, overwritten, grown, removed.
      ObjectKey first = created.get(0);
      assertEquals(0, h.read(first, 0, 1).length);
      byte[] data = bytes(8192, 5);
      h.write(first, 0, data);
      assertArrayEquals(data, h.read(first, 0, data.length));
      // A new one is still refused, with the same clear error...
      ObjectKey late = new ObjectKey(2, pad + "-late");
      StoreException again = assertThrows(StoreException.class, () -> h.write(late, 0, data));
      assertEquals(StoreException.Code.NO_MEMORY, again.code());
      // ...until removing objects gives the index room back (16 of them: the write above took the
      // block maps' first chunk of native memory, which stays with the index).
      for (int i = 1; i <= 16; i++) {
        ObjectKey k = created.get(i);
        h.call((StoreCompletion<Void> c) -> h.shard.remove(k, c));
      }
      h.write(late, 0, data);
      assertArrayEquals(data, h.read(late, 0, data.length));
    } finally {
      h.close();
    }
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void aWriteWhoseBatchDoesNotFitFailsWithNoMemoryAndTheShardKeepsServing() throws IOException {
    // Free after mount: 32 KiB, less than a write larger than a batch buffer needs of its own.
    MemoryBudget budget = new MemoryBudget(FIXED + IndexMemory.STEP + (32 << 10));
    StoreHarness h = harness(dir, budget);
    try {
      ObjectKey small = new ObjectKey(1, "small");
      byte[] four = bytes(4096, 8);
      h.write(small, 0, four);
      byte[] big = bytes(100 << 10, 9);
      StoreException e =
          assertThrows(StoreException.class, () -> h.write(new ObjectKey(1, "big"), 0, big));
      assertEquals(StoreException.Code.NO_MEMORY, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("journal batch"), e.getMessage());
      assertEquals(FIXED, budget.reservedBytes(MemoryUse.IO_BUFFERS), "nothing kept for it");
      assertArrayEquals(four, h.read(small, 0, four.length));
      h.write(small, 4096, four);
      assertArrayEquals(four, h.read(small, 4096, four.length));
    } finally {
      h.close();
    }
    assertEquals(0, budget.reservedBytes());
  }
}
