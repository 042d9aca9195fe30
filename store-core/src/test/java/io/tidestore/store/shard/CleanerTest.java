package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Random 4 KiB overwrites of a store kept about 75% full, ten times its capacity: the cleaner must
 * relocate live blocks and reclaim segments so that no write runs out of space, every block reads
 * back, and write amplification is reported.
 */
class CleanerTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(CleanerPolicy.class)
  void cleanerKeepsUpWithRandomOverwritesOfAFullStore(CleanerPolicy policy) throws IOException {
    try (StoreHarness h =
        new StoreHarness(dir, 5, StoreHarness.testConfig().withCleanerPolicy(policy))) {
      int objects = 6;
      int blocksPerObject = 128; // 6 x 512 KiB = 3 MiB of a 4 MiB shard
      byte[][] model = new byte[objects][blocksPerObject * 4096];
      Random r = new Random(9);
      for (int o = 0; o < objects; o++) {
        r.nextBytes(model[o]);
        for (int b = 0; b < blocksPerObject; b += 8) {
          byte[] chunk = new byte[8 * 4096];
          System.arraycopy(model[o], b * 4096, chunk, 0, chunk.length);
          h.write(new ObjectKey(1, "img-" + o), (long) b * 4096, chunk);
        }
      }
      StoreException[] failure = {null};
      long capacityBlocks = 32L * 32;
      for (long i = 0; i < capacityBlocks * 10; i++) {
        int o = r.nextInt(objects);
        int b = r.nextInt(blocksPerObject);
        byte[] block = new byte[4096];
        r.nextBytes(block);
        System.arraycopy(block, 0, model[o], b * 4096, 4096);
        h.shard.write(
            new ObjectKey(1, "img-" + o),
            (long) b * 4096,
            MemorySegment.ofArray(block),
            (v, e) -> {
              if (e != null && failure[0] == null) {
                failure[0] = e;
              }
            });
        if (i % 8 == 7) {
          h.pass();
        }
        assertNull(failure[0], "write " + i + " failed");
      }
      h.awaitIdle();
      ShardStats stats = h.shard.stats();
      assertTrue(stats.segmentsCleaned() > 10, "cleaned " + stats.segmentsCleaned());
      assertTrue(stats.writeAmplification() > 1.0, "WA " + stats.writeAmplification());
      for (int o = 0; o < objects; o++) {
        assertArrayEquals(model[o], h.read(new ObjectKey(1, "img-" + o), 0, model[o].length));
      }
      h.crashAndRemount();
      for (int o = 0; o < objects; o++) {
        assertArrayEquals(model[o], h.read(new ObjectKey(1, "img-" + o), 0, model[o].length));
      }
      System.out.printf(
          "cleaner %s: WA %.2f, %d segments cleaned, index %d B for %d live blocks%n",
          policy,
          stats.writeAmplification(),
          stats.segmentsCleaned(),
          stats.indexBytes(),
          stats.liveBlocks());
    }
  }
}
