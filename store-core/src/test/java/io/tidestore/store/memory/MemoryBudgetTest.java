package io.tidestore.store.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import org.junit.jupiter.api.Test;

class MemoryBudgetTest {
  @Test
  void reservationsAreGaugedPerUseAndReleasedOnce() {
    MemoryBudget b = new MemoryBudget(10 << 20);
    var cache = b.reserve(MemoryUse.CACHE, 6 << 20, "cache");
    var io = b.reserve(MemoryUse.IO_BUFFERS, 3 << 20, "io");
    assertEquals(9 << 20, b.reservedBytes());
    assertEquals(6 << 20, b.reservedBytes(MemoryUse.CACHE));
    assertEquals(1 << 20, b.availableBytes());
    cache.close();
    cache.close();
    assertEquals(3 << 20, b.reservedBytes());
    io.close();
    assertEquals(0, b.reservedBytes());
  }

  @Test
  void exceedingTheLimitIsATypedErrorNamingTheNumbers() {
    MemoryBudget b = new MemoryBudget(8 << 20);
    b.reserve(MemoryUse.INDEX, 5 << 20, "index");
    var e =
        assertThrows(
            MemoryBudgetExceededException.class,
            () -> b.reserve(MemoryUse.CACHE, 4 << 20, "extent cache of shard 0"));
    assertEquals(4 << 20, e.requestedBytes());
    assertEquals(8 << 20, e.limitBytes());
    assertTrue(e.getMessage().contains("extent cache of shard 0"), e.getMessage());
    assertTrue(e.getMessage().contains("needs 4 MiB but only 3 MiB"), e.getMessage());
    assertEquals(5 << 20, b.reservedBytes(), "a refused reservation takes nothing");
  }

  @Test
  void aCacheTooBigForTheBudgetAllocatesNothing() {
    MemoryBudget b = new MemoryBudget(1 << 20);
    assertThrows(
        MemoryBudgetExceededException.class,
        () -> ExtentCache.open("shard 0", 2 << 20, PolicyConfig.lru(), b));
    assertEquals(0, b.reservedBytes());
    try (ExtentCache c = ExtentCache.open("shard 0", 1 << 20, PolicyConfig.lru(), b)) {
      assertEquals(1 << 20, b.reservedBytes(MemoryUse.CACHE));
      assertEquals(1 << 20, c.capacityBytes());
    }
    assertEquals(0, b.reservedBytes());
  }
}
