package io.tidestore.store.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryUse;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The extent-cache contract every replacement policy must keep; one subclass per policy (the Netty
 * testsuite pattern).
 */
abstract class ExtentCacheContract {
  static final int BLOCK = CacheKeys.BLOCK_SIZE;

  final MemoryBudget budget = new MemoryBudget(64L << 20);
  final List<ExtentCache> opened = new ArrayList<>();

  abstract PolicyConfig policy();

  ExtentCache open(long capacityBytes) {
    ExtentCache c = ExtentCache.open("test cache", capacityBytes, policy(), budget);
    opened.add(c);
    return c;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(ExtentCache::close);
  }

  /** Fills the extent with a pattern derived from (object, block) so stale bytes show. */
  static void fill(MemorySegment s, long objectId, int firstBlock, long version) {
    for (long off = 0; off < s.byteSize(); off += 8) {
      s.set(ValueLayout.JAVA_LONG_UNALIGNED, off, pattern(objectId, firstBlock, off, version));
    }
  }

  static long pattern(long objectId, int firstBlock, long off, long version) {
    return objectId * 1_000_003L + firstBlock * 8191L + off + version * 31L;
  }

  static void assertFilled(MemorySegment s, long objectId, int firstBlock, long version) {
    for (long off = 0; off < s.byteSize(); off += 512) {
      assertEquals(
          pattern(objectId, firstBlock, off, version),
          s.get(ValueLayout.JAVA_LONG_UNALIGNED, off),
          "object " + objectId + " block " + firstBlock + " offset " + off);
    }
  }

  static long put(ExtentCache c, long objectId, int firstBlock, int blocks, long version) {
    long h = c.allocate(objectId, firstBlock, blocks);
    assertTrue(h >= 0, "allocate refused");
    fill(c.segment(h), objectId, firstBlock, version);
    assertTrue(c.publish(h), "publish refused");
    return h;
  }

  static void assertWithinCapacity(ExtentCache c) {
    CacheStats s = c.stats();
    assertTrue(s.allocatedBytes() <= s.capacityBytes(), "allocated " + s.allocatedBytes());
    assertTrue(s.cachedBytes() <= s.capacityBytes(), "cached " + s.cachedBytes());
    assertTrue(c.policy().residentBlocks() * BLOCK <= s.capacityBytes());
    assertEquals(s.cachedBytes(), c.policy().residentBlocks() * BLOCK);
  }

  @Test
  void readsBackWhatWasPublishedFromAnyBlockOfTheExtent() {
    ExtentCache c = open(1 << 20);
    put(c, 7, 16, 16, 1);
    for (int b = 16; b < 32; b++) {
      long h = c.lookup(7, b);
      assertTrue(h >= 0, "block " + b);
      assertEquals(16, c.firstBlock(h));
      assertEquals(16, c.blockCount(h));
      assertFilled(c.segment(h), 7, 16, 1);
    }
    assertEquals(ExtentCache.MISS, c.lookup(7, 32));
    assertEquals(ExtentCache.MISS, c.lookup(8, 16));
    assertEquals(ExtentCache.MISS, c.lookupKey(-1), "the map's empty marker is not a key");
    assertEquals(16, c.stats().hits());
    assertEquals(3, c.stats().misses());
  }

  @Test
  void buffersAreAlignedForDirectIo() {
    ExtentCache c = open(4 << 20);
    for (int blocks : new int[] {1, 3, 16, 100}) {
      long h = c.allocate(1, 0, blocks);
      MemorySegment s = c.segment(h);
      assertEquals(0, s.address() % BLOCK);
      assertEquals((long) blocks * BLOCK, s.byteSize());
      c.abandon(h);
    }
    for (MemorySegment r : c.regions()) {
      assertEquals(0, r.address() % BLOCK);
      assertEquals(0, r.byteSize() % BLOCK);
    }
    assertEquals(0, c.stats().allocatedBytes());
  }

  @Test
  void capacityIsNeverExceededUnderMixedSizes() {
    ExtentCache c = open(8 << 20); // 2048 blocks
    SplittableRandom rnd = new SplittableRandom(42);
    int[] sizes = {1, 1, 1, 2, 3, 4, 16, 16, 100, 256, 1024};
    for (int i = 0; i < 5_000; i++) {
      long obj = rnd.nextInt(64);
      int blocks = sizes[rnd.nextInt(sizes.length)];
      int first = rnd.nextInt(CacheKeys.MAX_BLOCKS_PER_OBJECT - blocks);
      switch (rnd.nextInt(10)) {
        case 0 -> c.invalidate(obj, first, first + blocks);
        case 1, 2, 3 -> c.lookup(obj, first);
        default -> {
          long h = c.allocate(obj, first, blocks);
          assertTrue(h >= 0, "nothing pinned, so room can always be made");
          fill(c.segment(h), obj, first, i);
          c.publish(h);
        }
      }
      assertWithinCapacity(c);
    }
    assertTrue(c.stats().evictions() > 0, "the workload must overflow the cache");
  }

  @Test
  void pinnedExtentsAreNeverEvicted() {
    ExtentCache c = open(1 << 20); // 256 blocks
    List<Long> pinned = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      long h = put(c, 1, i * 4, 4, 9);
      c.pin(h);
      pinned.add(h);
    }
    assertEquals(8, c.stats().pinnedExtents());
    for (int i = 0; i < 2_000; i++) {
      put(c, 2 + i % 50, (i * 7) % 16000, 1 + i % 8, i);
      assertWithinCapacity(c);
    }
    for (int i = 0; i < 8; i++) {
      assertTrue(c.contains(1, i * 4), "pinned extent " + i + " was evicted");
      assertFilled(c.segment(pinned.get(i)), 1, i * 4, 9);
    }
    pinned.forEach(c::unpin);
    assertEquals(0, c.stats().pinnedExtents());
    for (int i = 0; i < 2_000; i++) {
      put(c, 2 + i % 50, (i * 7) % 16000, 1 + i % 8, i);
    }
    assertFalse(c.contains(1, 0), "unpinned, it is an ordinary victim again");
  }

  @Test
  void allPinnedMeansNoSpaceNotOverflow() {
    ExtentCache c = open(64 * BLOCK);
    for (int i = 0; i < 16; i++) {
      c.pin(put(c, 1, i * 4, 4, 0));
    }
    assertEquals(ExtentCache.NO_SPACE, c.allocate(2, 0, 1));
    assertEquals(ExtentCache.NO_SPACE, c.allocate(2, 0, 128), "bigger than the cache");
    assertEquals(2, c.stats().rejections());
    assertWithinCapacity(c);
  }

  @Test
  void invalidateDropsEveryOverlappingExtent() {
    ExtentCache c = open(1 << 20);
    put(c, 5, 0, 8, 0); // [0, 8)
    put(c, 5, 8, 8, 0); // [8, 16)
    put(c, 5, 16, 8, 0); // [16, 24)
    put(c, 6, 0, 8, 0);
    // Overwrite of block 10..17 touches the middle and the last extent only.
    assertEquals(2, c.invalidate(5, 10, 17));
    assertTrue(c.contains(5, 7));
    assertFalse(c.contains(5, 8));
    assertFalse(c.contains(5, 23));
    assertTrue(c.contains(6, 0));
    assertEquals(1, c.invalidateObject(5));
    assertFalse(c.contains(5, 0));
    assertTrue(c.contains(6, 7));
    assertEquals(8 * BLOCK, c.stats().cachedBytes());
    assertEquals(3, c.stats().invalidations());
  }

  @Test
  void publishReplacesOlderOverlappingExtents() {
    ExtentCache c = open(1 << 20);
    put(c, 3, 0, 4, 1);
    put(c, 3, 4, 4, 1);
    put(c, 3, 2, 4, 2); // a newer write of blocks 2..5
    assertFalse(c.contains(3, 0), "the overlapped older extent is gone");
    assertFalse(c.contains(3, 7));
    long h = c.lookup(3, 3);
    assertEquals(2, c.firstBlock(h));
    assertFilled(c.segment(h), 3, 2, 2);
    assertEquals(4 * BLOCK, c.stats().cachedBytes());
  }

  @Test
  void fillRacingAnInvalidationIsNotPublished() {
    ExtentCache c = open(1 << 20);
    long reading = c.allocate(4, 8, 8);
    c.invalidate(4, 12, 13); // a write lands while the read is in flight
    fill(c.segment(reading), 4, 8, 0);
    assertFalse(c.publish(reading));
    assertFalse(c.contains(4, 8));
    assertEquals(1, c.stats().staleFills());
    assertEquals(0, c.stats().allocatedBytes());
    assertThrows(IllegalStateException.class, () -> c.segment(reading), "handle is dead");
  }

  @Test
  void aReadFilledBeforeAnOverlappingWritePublishesCannotReplaceIt() {
    ExtentCache c = open(1 << 20);
    long read = c.allocate(4, 0, 8); // read of blocks 0..7 in flight, old bytes
    put(c, 4, 2, 2, 7); // a durable write of blocks 2..3 enters the cache meanwhile
    fill(c.segment(read), 4, 0, 1);
    assertFalse(c.publish(read), "the read's bytes predate the write");
    long h = c.lookup(4, 3);
    assertEquals(2, c.firstBlock(h));
    assertFilled(c.segment(h), 4, 2, 7);
    assertFalse(c.contains(4, 0));
  }

  @Test
  void onlyTheOwnerThreadMayUseTheCache() throws Exception {
    ExtentCache c = open(1 << 20);
    put(c, 1, 0, 1, 0); // this thread becomes the owner
    java.util.concurrent.atomic.AtomicReference<Throwable> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread other =
        new Thread(
            () -> {
              try {
                c.lookup(1, 0);
              } catch (Throwable t) {
                seen.set(t);
              }
              c.requestPolicy(PolicyConfig.lru()); // the one call any thread may make
            },
            "intruder");
    other.start();
    other.join();
    assertTrue(seen.get() instanceof WrongThreadException, String.valueOf(seen.get()));
    assertTrue(seen.get().getMessage().contains("called from 'intruder'"), seen.get().getMessage());
    assertTrue(c.applyPendingPolicy());
    assertEquals(1, c.stats().policySwitches());
  }

  @Test
  void invalidatedWhilePinnedIsFreedAtLastUnpin() {
    ExtentCache c = open(1 << 20);
    long h = put(c, 9, 0, 16, 3);
    c.pin(h);
    c.pin(h);
    c.invalidateObject(9);
    assertFalse(c.contains(9, 0));
    assertEquals(ExtentCache.MISS, c.lookup(9, 0));
    assertFilled(c.segment(h), 9, 0, 3); // the reply still sends valid bytes
    c.unpin(h);
    assertEquals(16L * BLOCK, c.stats().allocatedBytes());
    c.unpin(h);
    assertEquals(0, c.stats().allocatedBytes());
    assertThrows(IllegalStateException.class, () -> c.unpin(h));
  }

  @Test
  void closeReturnsEveryByteAndClosesTheArena() {
    ExtentCache c = open(4 << 20);
    assertEquals(4 << 20, budget.reservedBytes(MemoryUse.CACHE));
    long h = put(c, 1, 0, 8, 0);
    c.pin(h);
    MemorySegment s = c.segment(h);
    c.close();
    assertTrue(c.isReleased());
    assertEquals(0, budget.reservedBytes());
    assertThrows(IllegalStateException.class, () -> s.get(ValueLayout.JAVA_BYTE, 0));
    assertThrows(IllegalStateException.class, () -> c.lookup(1, 0));
  }

  @Test
  void freedMemoryCoalescesAfterChurn() {
    ExtentCache c = open(4 << 20);
    SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 3_000; i++) {
      int blocks = 1 << rnd.nextInt(8);
      put(c, rnd.nextInt(16), rnd.nextInt(8000), blocks, i);
    }
    for (long obj = 0; obj < 16; obj++) {
      c.invalidateObject(obj);
    }
    assertEquals(0, c.stats().allocatedBytes());
    long h = c.allocate(1, 0, 1024); // a whole 4 MiB extent fits again: no lasting fragmentation
    assertNotEquals(ExtentCache.NO_SPACE, h);
  }

  @Test
  void switchKeepsEveryCachedExtent() {
    ExtentCache c = open(1 << 20);
    for (int i = 0; i < 40; i++) {
      put(c, 1, i * 4, 4, 5);
    }
    c.lookup(1, 8);
    PolicyKind other = policy().kind() == PolicyKind.LRU ? PolicyKind.TWO_Q : PolicyKind.LRU;
    var done = c.requestPolicy(new PolicyConfig(other, 0.25, 0.5, true));
    assertFalse(done.isDone(), "applied on the owner thread, not by the requester");
    assertTrue(c.applyPendingPolicy());
    assertTrue(done.isDone());
    assertEquals(other.configName(), c.stats().policy());
    assertEquals(1, c.stats().policySwitches());
    for (int i = 0; i < 40; i++) {
      long h = c.lookup(1, i * 4);
      assertTrue(h >= 0, "extent " + i + " lost in the switch");
      assertFilled(c.segment(h), 1, i * 4, 5);
    }
    assertWithinCapacity(c);
  }

  @Test
  void switchRequestedFromAnotherThreadUnderLoad() throws Exception {
    ExtentCache c = open(1 << 20); // 256 blocks, far fewer than the working set: evictions happen
    int switches = 25;
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread requester =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < switches; i++) {
                  PolicyConfig next =
                      i % 2 == 0 ? PolicyConfig.lru() : PolicyConfig.twoQ(i % 4 == 1);
                  assertEquals(
                      next, c.requestPolicy(next).get(30, java.util.concurrent.TimeUnit.SECONDS));
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "admin-requester");
    java.util.Map<Long, Long> versions = new java.util.HashMap<>();
    SplittableRandom rnd = new SplittableRandom(3);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    requester.start();
    long op = 0;
    // The owner thread keeps working (and past the last switch, enough to overflow the cache);
    // each cache call applies a pending switch first.
    while (requester.isAlive() || op < 2_000) {
      assertTrue(System.nanoTime() < deadline, "switches not applied within 30 s");
      int first = rnd.nextInt(1000) * 4;
      long obj = rnd.nextInt(4);
      long h = c.lookup(obj, first);
      if (h >= 0) {
        assertFilled(c.segment(h), obj, first, versions.get(CacheKeys.key(obj, first)));
      } else {
        put(c, obj, first, 4, ++op);
        versions.put(CacheKeys.key(obj, first), op);
      }
      assertWithinCapacity(c);
    }
    requester.join();
    if (failure.get() != null) {
      throw new AssertionError("requester failed", failure.get());
    }
    assertEquals(switches, c.stats().policySwitches());
    assertEquals(PolicyKind.LRU.configName(), c.stats().policy()); // the 25th request: lru
    assertTrue(c.stats().evictions() > 0);
    // Every extent still indexed holds its own latest bytes.
    for (var e : versions.entrySet()) {
      long obj = CacheKeys.objectId(e.getKey());
      int first = CacheKeys.block(e.getKey());
      if (c.contains(obj, first)) {
        assertFilled(c.segment(c.lookup(obj, first)), obj, first, e.getValue());
      }
    }
  }
}
