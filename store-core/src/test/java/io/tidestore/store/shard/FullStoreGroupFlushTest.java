package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store filled to its capacity, in shared-fdatasync mode with the group flush and the daemon's
 * batch limits (a record may take a whole segment): overwriting live data must wait for the cleaner
 * and never get NO_SPACE. While a record is being made durable the next batch keeps growing, the
 * cleaner's relocations in it too, and an overwrite that does not fit after it must not be charged
 * the segment that batch opens: the batch goes out whether or not the overwrite waits.
 */
class FullStoreGroupFlushTest {
  private static final int CHUNK = 32 << 10;
  private static final int OVERWRITTEN_CHUNKS = 16;
  private static final int VERSIONS = 12;
  private static final long DEADLINE_NANOS = 30_000_000_000L;

  @TempDir Path dir;

  /** The daemon's defaults at the test geometry: batches as large as a segment, no headroom. */
  static StoreConfig config() {
    return new StoreConfig(
        StoreHarness.SEGMENT_BYTES,
        256,
        1_000_000L,
        4,
        512 << 10,
        CleanerPolicy.GREEDY,
        3,
        2,
        JournalFlush.SHARED_FDATASYNC,
        0);
  }

  @Test
  void overwritesOfLiveDataOnAFullStoreNeverGetNoSpace() throws IOException {
    // Each seed orders the simulated disk's completions differently; one overwrite at a time is
    // what an NBD client does, four at once keeps records in flight while the next batch grows.
    for (int inFlight : new int[] {1, 4}) {
      for (long seed : new long[] {27, 3, 11}) {
        overwriteAFullStore(dir.resolve(inFlight + "-" + seed), seed, inFlight);
      }
    }
  }

  private static void overwriteAFullStore(Path at, long seed, int inFlight) throws IOException {
    Files.createDirectories(at);
    try (StoreHarness h = new StoreHarness(at, seed, config())) {
      ObjectKey b = new ObjectKey(1, "b");
      for (int c = 0; c < OVERWRITTEN_CHUNKS; c++) {
        h.write(b, (long) c * CHUNK, chunk(0, c));
      }
      // Another object takes the rest of the capacity: the store is full.
      ObjectKey a = new ObjectKey(1, "a");
      StoreException full = null;
      for (int c = 0; full == null; c++) {
        try {
          h.write(a, (long) c * CHUNK, chunk(0, 1000 + c));
        } catch (StoreException e) {
          full = e;
        }
      }
      assertEquals(StoreException.Code.NO_SPACE, full.code(), full.getMessage());
      for (int version = 1; version <= VERSIONS; version++) {
        for (int c = 0; c < OVERWRITTEN_CHUNKS; c += inFlight) {
          String failed = overwrite(h, b, version, c, inFlight);
          assertNull(
              failed,
              "seed "
                  + seed
                  + ", "
                  + inFlight
                  + " in flight, overwrite "
                  + version
                  + ": "
                  + failed);
        }
      }
      h.remount();
      for (int c = 0; c < OVERWRITTEN_CHUNKS; c++) {
        assertArrayEquals(chunk(VERSIONS, c), h.read(b, (long) c * CHUNK, CHUNK), "chunk " + c);
      }
    }
  }

  /**
   * Overwrites chunks {@code [first, first + count)} with {@code version}, all at once; the first
   * failure, or null.
   */
  private static String overwrite(StoreHarness h, ObjectKey key, int version, int first, int count)
      throws IOException {
    StoreException[] errors = new StoreException[count];
    int[] left = {count};
    for (int i = 0; i < count; i++) {
      int slot = i;
      h.shard.write(
          key,
          (long) (first + i) * CHUNK,
          MemorySegment.ofArray(chunk(version, first + i)),
          (v, e) -> {
            errors[slot] = e;
            left[0]--;
          });
    }
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (left[0] > 0) {
      assertTrue(System.nanoTime() < deadline, "overwrites did not complete within 30 s");
      h.pass();
    }
    for (int i = 0; i < count; i++) {
      if (errors[i] != null) {
        return "chunk " + (first + i) + ": " + errors[i];
      }
    }
    return null;
  }

  private static byte[] chunk(int version, int c) {
    byte[] bytes = new byte[CHUNK];
    new Random(version * 100_003L + c).nextBytes(bytes);
    return bytes;
  }
}
