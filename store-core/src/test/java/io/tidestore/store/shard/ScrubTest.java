package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ScrubStats;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScrubTest {
  @TempDir Path dir;

  private static byte[] filled(int length, int value) {
    byte[] b = new byte[length];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static ScrubStats scrubToEnd(StoreHarness h, long passes) throws IOException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (h.shard.stats().scrub().passes() < passes) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("scrub did not finish: " + h.shard.stats().scrub());
      }
      h.pass();
    }
    return h.shard.stats().scrub();
  }

  @Test
  void scrubChecksEveryBlockAndNamesTheDamagedOne() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 21, StoreHarness.testConfig())) {
      ObjectKey a = new ObjectKey(1, "a");
      ObjectKey b = new ObjectKey(1, "b");
      h.write(a, 0, filled(64 << 10, 1));
      h.write(b, 0, filled(32 << 10, 2));
      h.shard.scrubSchedule(0, 64L << 20);
      assertTrue(h.shard.startScrub());
      assertFalse(h.shard.startScrub(), "one pass at a time");
      ScrubStats clean = scrubToEnd(h, 1);
      assertEquals(24, clean.passBlocksDone());
      assertEquals(24, clean.passBlocksTotal());
      assertEquals(0, clean.errors(), clean.damaged().toString());

      // Media damage in block 5 of "a".
      long entry = ((LogShard) h.shard).index().get(a).block(5);
      long at = Integer.toUnsignedLong(BlockEntry.location(entry)) * Blocks.SIZE + 100;
      h.disk.corrupt(StoreLayout.of(dir).space(0).path(), at);

      assertTrue(h.shard.startScrub());
      ScrubStats found = scrubToEnd(h, 2);
      assertEquals(1, found.errors(), found.damaged().toString());
      String finding = found.damaged().get(0);
      assertTrue(finding.contains("object 1/a offset " + 5 * 4096), finding);
      assertEquals(24, found.passBlocksDone(), "the damaged run was re-read block by block");

      StoreException e = assertThrows(StoreException.class, () -> h.read(a, 5 * 4096L, 4096));
      assertEquals(StoreException.Code.CORRUPT, e.code());
      assertArrayEquals(filled(4096, 1), h.read(a, 4 * 4096L, 4096), "the neighbours serve");
      assertArrayEquals(filled(32 << 10, 2), h.read(b, 0, 32 << 10));
    }
  }

  @Test
  void scheduledPassStartsAfterItsInterval() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 22, StoreHarness.testConfig())) {
      h.write(new ObjectKey(1, "a"), 0, filled(8192, 1));
      h.shard.scrubSchedule(1_000_000L, 1L << 20);
      ScrubStats s = scrubToEnd(h, 2);
      assertEquals(0, s.errors());
      assertTrue(s.blocksChecked() >= 4);
    }
  }
}
