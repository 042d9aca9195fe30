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
 * NO_SPACE, and a store filled to it still takes overwrites (the cleaner keeps its slack).
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
      int objects = (int) (empty.capacityBytes() / OBJECT_BYTES);
      assertEquals(0, empty.capacityBytes() % OBJECT_BYTES, "the fill below is exact");
      byte[][] model = new byte[objects][];
      Random r = new Random(9);
      for (int i = 0; i < objects; i++) {
        model[i] = new byte[OBJECT_BYTES];
        r.nextBytes(model[i]);
        h.write(key(i), 0, model[i]);
      }
      assertEquals(empty.capacityBytes() >> 12, h.shard.stats().liveBlocks());

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
        int b = r.nextInt(OBJECT_BYTES >> 12);
        byte[] data = block(n);
        h.write(key(i), (long) b << 12, data);
        System.arraycopy(data, 0, model[i], b << 12, data.length);
      }
      assertTrue(h.shard.stats().segmentsCleaned() > 0, "the overwrites needed the cleaner");
      assertEquals(empty.capacityBytes() >> 12, h.shard.stats().liveBlocks());

      h.remount();
      for (int i = 0; i < objects; i++) {
        assertArrayEquals(model[i], h.read(key(i), 0, OBJECT_BYTES), "object " + i);
      }
      // Removing an object gives its blocks back to new data.
      h.call((StoreCompletion<Void> c) -> h.shard.remove(key(1), c));
      h.write(key(-1), 0, model[1]);
      assertArrayEquals(model[1], h.read(key(-1), 0, OBJECT_BYTES));
    }
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
