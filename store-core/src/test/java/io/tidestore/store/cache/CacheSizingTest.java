package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CacheSizingTest {
  @Test
  void splitsEvenlyInWholeBlocksNeverExceedingTheTotal() {
    assertEquals(2L << 30, CacheSizing.perShardBytes(8L << 30, 4));
    long share = CacheSizing.perShardBytes((1L << 30) + 12345, 3);
    assertEquals(0, share % 4096);
    assertTrue(3 * share <= (1L << 30) + 12345);
    assertTrue(3 * (share + 4096) > (1L << 30) + 12345, "no whole block left unused per shard");
  }

  @Test
  void zeroMeansNoCache() {
    assertEquals(0, CacheSizing.perShardBytes(0, 4)); // --cache-size 0, as its help says
  }

  @Test
  void tooSmallIsAClearError() {
    var e = assertThrows(IllegalArgumentException.class, () -> CacheSizing.perShardBytes(8192, 4));
    assertTrue(e.getMessage().contains("less than one 4 KiB block per shard"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CacheSizing.perShardBytes(1 << 20, 0));
  }
}
