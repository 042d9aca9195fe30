package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.testing.StoreHarness;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real shard on a real extent cache: reads hit the cache and never see stale blocks. */
class ShardCacheHookTest {
  private static final ObjectKey KEY = new ObjectKey(1, "rbd_data.1.0000000000000000");

  @TempDir Path dir;
  private MemoryBudget budget;
  private ExtentCache cache;
  private StoreHarness h;

  @BeforeEach
  void mount() throws Exception {
    budget = new MemoryBudget(64L << 20);
    // 16 blocks: small enough that the tests below evict.
    cache = ExtentCache.open("test cache", 16 * 4096, PolicyConfig.daemonDefault(), budget);
    h = new StoreHarness(dir, 7, StoreHarness.testConfig(), new ShardCacheHook(cache));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
    cache.close();
    assertEquals(0, budget.reservedBytes());
  }

  private static byte[] bytes(int length, int seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void appliedWritesEnterTheCacheAndReadsHit() throws Exception {
    byte[] data = bytes(4 * 4096, 1);
    h.write(KEY, 0, data);
    long hitsBefore = cache.stats().hits();
    assertArrayEquals(data, h.read(KEY, 0, data.length));
    assertTrue(cache.stats().hits() >= hitsBefore + 4, cache.stats().toString());
    // An unaligned read served from the cache.
    assertArrayEquals(Arrays.copyOfRange(data, 100, 9000), h.read(KEY, 100, 8900));
  }

  @Test
  void writesOverTheCapEnterOnlyFreeCacheMemory() throws Exception {
    h.close();
    // Writes of up to 2 blocks evict to enter the 16-block cache; larger ones never evict.
    h =
        new StoreHarness(
            dir.resolve("capped"), 7, StoreHarness.testConfig(), new ShardCacheHook(cache, 2));
    h.write(KEY, 0, bytes(2 * 4096, 1));
    byte[] large = bytes(4 * 4096, 2);
    h.write(KEY, 0, large);
    assertEquals(4 * 4096, cache.stats().cachedBytes(), "free memory takes a large write");
    for (int b = 10; b < 22; b++) {
      h.write(KEY, b * 4096L, bytes(4096, b));
    }
    assertEquals(16 * 4096, cache.stats().cachedBytes(), "small writes filled the cache");
    long evictions = cache.stats().evictions();

    byte[] beyond = bytes(4 * 4096, 3);
    h.write(KEY, 30 * 4096L, beyond);
    assertEquals(evictions, cache.stats().evictions(), "a large write pushed nothing out");
    long misses = cache.stats().misses();
    assertArrayEquals(beyond, h.read(KEY, 30 * 4096L, beyond.length), "read from disk");
    assertEquals(misses + 4, cache.stats().misses(), cache.stats().toString());

    // A large overwrite of cached blocks drops them (never a stale read) and may take their room.
    byte[] newer = bytes(4 * 4096, 4);
    h.write(KEY, 0, newer);
    assertArrayEquals(newer, h.read(KEY, 0, newer.length));
  }

  @Test
  void overwritesTruncatesAndRemovesNeverLeaveStaleBlocks() throws Exception {
    h.write(KEY, 0, bytes(8 * 4096, 1));
    h.read(KEY, 0, 8 * 4096);
    byte[] newer = bytes(4096, 2);
    h.write(KEY, 4096, newer);
    assertArrayEquals(newer, h.read(KEY, 4096, 4096));

    h.call((StoreCompletion<Void> c) -> h.shard.truncate(KEY, 4096, c));
    h.call((StoreCompletion<Void> c) -> h.shard.truncate(KEY, 8 * 4096, c));
    assertArrayEquals(new byte[7 * 4096], h.read(KEY, 4096, 7 * 4096), "truncated range is zeros");

    h.call((StoreCompletion<Void> c) -> h.shard.remove(KEY, c));
    assertThrows(StoreException.class, () -> h.read(KEY, 0, 4096));
    byte[] again = bytes(4096, 3);
    h.write(KEY, 0, again);
    assertArrayEquals(again, h.read(KEY, 0, 4096));
  }

  @Test
  void evictionUnderPressureKeepsEveryReadCorrect() throws Exception {
    // 64 blocks of data through a 16-block cache, read back in a shuffled order, twice.
    byte[][] blocks = new byte[64][];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = bytes(4096, 100 + i);
      h.write(KEY, (long) i * 4096, blocks[i]);
    }
    Random random = new Random(5);
    for (int round = 0; round < 2; round++) {
      for (int n = 0; n < 200; n++) {
        int i = random.nextInt(blocks.length);
        assertArrayEquals(blocks[i], h.read(KEY, (long) i * 4096, 4096), "block " + i);
        if (n % 17 == 0) {
          blocks[i] = bytes(4096, 1000 + n + round);
          h.write(KEY, (long) i * 4096, blocks[i]);
        }
      }
    }
    assertTrue(cache.stats().evictions() > 0, cache.stats().toString());
    assertTrue(cache.stats().cachedBytes() <= 16 * 4096);
  }

  @Test
  void aReadRacingAnOverwriteNeverCachesTheOlderBlock() throws Exception {
    // 64 blocks; each round reads block x, overwrites it and reads 20 others, all in flight at
    // once; the simulated disk completes them in random order, and the other reads evict.
    byte[][] blocks = new byte[64][];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = bytes(4096, 200 + i);
      h.write(KEY, (long) i * 4096, blocks[i]);
    }
    Random random = new Random(11);
    try (var arena = java.lang.foreign.Arena.ofConfined()) {
      var scratch = arena.allocate(21 * 4096L, 4096);
      for (int round = 0; round < 150; round++) {
        int x = random.nextInt(blocks.length);
        int[] pending = {0};
        StoreCompletion<Integer> counted = (v, e) -> pending[0]--;
        pending[0]++;
        h.shard.read(KEY, (long) x * 4096, scratch.asSlice(0, 4096), counted);
        blocks[x] = bytes(4096, 5000 + round);
        pending[0]++;
        h.shard.write(
            KEY,
            (long) x * 4096,
            java.lang.foreign.MemorySegment.ofArray(blocks[x]),
            (StoreCompletion<Void>) (v, e) -> pending[0]--);
        for (int k = 1; k <= 20; k++) {
          int other = random.nextInt(blocks.length);
          pending[0]++;
          h.shard.read(KEY, (long) other * 4096, scratch.asSlice(k * 4096L, 4096), counted);
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (pending[0] > 0) {
          assertTrue(System.nanoTime() < deadline, "round " + round + " did not complete");
          h.pass();
        }
        for (int i = 0; i < blocks.length; i++) {
          assertArrayEquals(
              blocks[i], h.read(KEY, (long) i * 4096, 4096), "round " + round + " block " + i);
        }
      }
    }
  }
}
