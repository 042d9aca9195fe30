package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reported capacity is what a user can store: exactly that much data fits, one block more is
 * NO_SPACE, and a store filled to it still takes overwrites (the cleaner keeps its slack). With no
 * over-provisioning the capacity is the cleaner's break-even; with some, that share of the segments
 * is left to users as headroom.
 */
class CapacityTest {
  @TempDir Path dir;

  /** 7 data blocks and 1 metadata block: four such records fill a 32-block test segment. */
  private static final int OBJECT_BYTES = 7 << 12;

  @Test
  void exactlyTheReportedCapacityFitsAndOverwritesGoOnAtFull() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 5, StoreHarness.testConfig())) {
      ShardStats empty = h.shard.stats();
      // 32 segments of 32 blocks: 2 reserved for the cleaner, 1 open; the 29 others hold 28 live
      // blocks each, so that cleaning them nets 32 - 28 - 2 (relocation metadata: 16 blocks a
      // record in 64 KiB batches) = 2 blocks each, 58 in all, a whole segment.
      assertEquals(29L * 28 * 4096, empty.capacityBytes());
      fillExactlyThenOverwrite(h, empty);
    }
  }

  @Test
  void overprovisioningLeavesItsShareOfTheSegmentsFree() throws IOException {
    try (StoreHarness h =
        new StoreHarness(dir, 5, StoreHarness.testConfig().withOverprovisionPercent(25))) {
      ShardStats empty = h.shard.stats();
      // The same 29 segments of 32 blocks, of which users get 75%: 696 blocks, below the 812 of
      // the break-even. (The write amplification this saves is measured at a realistic geometry:
      // bench-jmh StoreMeasurements, docs/benchmarks.md "Cleaner at 90% full".)
      assertEquals(29L * 32 * 3 / 4 * 4096, empty.capacityBytes());
      fillExactlyThenOverwrite(h, empty);
    }
  }

  /**
   * Fills the shard to exactly its capacity (objects of 7 blocks, the last one smaller), checks
   * that nothing more fits, overwrites random blocks, checks every object after a remount.
   */
  private static void fillExactlyThenOverwrite(StoreHarness h, ShardStats empty)
      throws IOException {
    long capacityBlocks = empty.capacityBytes() >> 12;
    int perObject = OBJECT_BYTES >> 12;
    int objects = (int) ((capacityBlocks + perObject - 1) / perObject);
    byte[][] model = new byte[objects][];
    Random r = new Random(9);
    for (int i = 0; i < objects; i++) {
      long blocks = Math.min(perObject, capacityBlocks - (long) i * perObject);
      model[i] = new byte[(int) blocks << 12];
      r.nextBytes(model[i]);
      h.write(key(i), 0, model[i]);
    }
    assertEquals(capacityBlocks, h.shard.stats().liveBlocks());

    // One block more, in a new object or past an existing one's end, is refused at once.
    StoreException more = assertThrows(StoreException.class, () -> h.write(key(-1), 0, block(1)));
    assertEquals(StoreException.Code.NO_SPACE, more.code());
    assertTrue(more.getMessage().contains("capacity"), more.getMessage());
    StoreException grow =
        assertThrows(StoreException.class, () -> h.write(key(0), OBJECT_BYTES, block(2)));
    assertEquals(StoreException.Code.NO_SPACE, grow.code());

    // Overwrites of a store at 100% of its capacity keep working: the cleaner has its slack.
    for (int n = 0; n < 3000; n++) {
      int i = r.nextInt(objects);
      int b = r.nextInt(model[i].length >> 12);
      byte[] data = block(n);
      h.write(key(i), (long) b << 12, data);
      System.arraycopy(data, 0, model[i], b << 12, data.length);
    }
    assertTrue(h.shard.stats().segmentsCleaned() > 0, "the overwrites needed the cleaner");
    assertEquals(capacityBlocks, h.shard.stats().liveBlocks());

    h.remount();
    for (int i = 0; i < objects; i++) {
      assertArrayEquals(model[i], h.read(key(i), 0, model[i].length), "object " + i);
    }
    // Removing an object gives its blocks back to new data.
    h.call((StoreCompletion<Void> c) -> h.shard.remove(key(1), c));
    h.write(key(-1), 0, model[1]);
    assertArrayEquals(model[1], h.read(key(-1), 0, OBJECT_BYTES));
  }

  private static ObjectKey key(int i) {
    return new ObjectKey(1, "cap-" + i);
  }

  private static byte[] block(int seed) {
    byte[] b = new byte[4096];
    new Random(seed).nextBytes(b);
    return b;
  }
}
