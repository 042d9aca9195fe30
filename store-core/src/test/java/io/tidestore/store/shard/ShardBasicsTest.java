package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardBasicsTest {
  @TempDir Path dir;
  StoreHarness h;
  final ObjectKey a = new ObjectKey(1, "alpha");

  @BeforeEach
  void setUp() throws IOException {
    h = new StoreHarness(dir, 42, StoreHarness.testConfig());
  }

  @AfterEach
  void tearDown() throws IOException {
    h.close();
  }

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void readYourWritesAlignedAndUnaligned() throws IOException {
    byte[] model = new byte[40000];
    Random r = new Random(1);
    for (int i = 0; i < 60; i++) {
      int off = r.nextInt(30000);
      int len = 1 + r.nextInt(9000);
      byte[] d = bytes(len, i);
      h.write(a, off, d);
      System.arraycopy(d, 0, model, off, len);
      int size = Math.max(off + len, sizeOf(a));
      assertArrayEquals(Arrays.copyOf(model, size), h.read(a, 0, size), "after write " + i);
    }
    int size = sizeOf(a);
    // Odd-sized reads at odd offsets are served from verified whole blocks.
    for (int i = 0; i < 50; i++) {
      int off = r.nextInt(size);
      int len = r.nextInt(size - off + 10);
      byte[] got = h.read(a, off, len);
      assertArrayEquals(Arrays.copyOfRange(model, off, Math.min(size, off + len)), got);
    }
    h.remount();
    assertArrayEquals(Arrays.copyOf(model, size), h.read(a, 0, size));
  }

  /**
   * Mutations issued back to back, before any is durable (partial writes whose base is on disk, so
   * they wait for a read while later ones queue; truncates; removes; re-creates): each is applied
   * in issue order, and once all are, the write path holds nothing and removed objects are gone.
   */
  @Test
  void pipelinedMutationsApplyInOrderAndLeaveNoStagingState() throws IOException {
    ObjectKey b = new ObjectKey(1, "beta");
    ObjectKey c = new ObjectKey(1, "gamma");
    h.write(a, 0, bytes(20000, 1));
    h.write(b, 0, bytes(9000, 2));
    h.remount(); // empty the cache: partial writes below read their base from disk
    List<StoreException> failures = new ArrayList<>();
    int[] done = {0};
    StoreCompletion<Void> count =
        (v, e) -> {
          done[0]++;
          if (e != null) {
            failures.add(e);
          }
        };
    byte[] model = java.util.Arrays.copyOf(h.read(a, 0, 20000), 20000);
    byte[] patch = bytes(100, 3);
    h.shard.write(a, 4000, java.lang.foreign.MemorySegment.ofArray(patch), count); // RMW
    System.arraycopy(patch, 0, model, 4000, 100);
    h.shard.truncate(a, 10000, count); // queues behind the read-modify-write
    h.shard.setXattr(a, "k", new byte[] {9}, count);
    h.shard.remove(b, count);
    h.shard.write(c, 100, java.lang.foreign.MemorySegment.ofArray(patch), count);
    h.shard.remove(c, count);
    h.shard.write(c, 0, java.lang.foreign.MemorySegment.ofArray(patch), count); // re-created
    h.awaitIdle();
    assertEquals(7, done[0]);
    assertEquals(List.of(), failures);
    assertEquals(0, ((LogShard) h.shard).stagedObjects(), "staging state left behind");
    assertNull(((LogShard) h.shard).index().get(b), "a removed object stayed in the index");
    assertArrayEquals(java.util.Arrays.copyOf(model, 10000), h.read(a, 0, 20000));
    assertArrayEquals(patch, h.read(c, 0, 1000));
    h.remount();
    assertArrayEquals(java.util.Arrays.copyOf(model, 10000), h.read(a, 0, 20000));
    assertEquals(100, sizeOf(c));
    assertEquals(0, sizeOf(b));
  }

  @Test
  void punchedBlocksReadAsZerosAreHolesAndSurviveRemountAndCrash() throws IOException {
    int bs = 4096;
    byte[] data = bytes(10 * bs, 5);
    h.write(a, 0, data);
    Allocation all =
        h.call((StoreCompletion<Allocation> c) -> h.shard.allocation(a, 0, 1 << 20, c));
    assertEquals(new Allocation(10 * bs, new long[] {0, 10 * bs}), all);
    h.call((StoreCompletion<Void> c) -> h.shard.punch(a, 2 * bs, 3 * bs, c));
    // A partial write onto a punched block merges onto zeros, staged before the punch applies.
    h.shard.punch(a, 7 * bs, bs, (v, e) -> {});
    byte[] patch = bytes(100, 6);
    h.write(a, 7 * bs + 50, patch);
    byte[] want = data.clone();
    java.util.Arrays.fill(want, 2 * bs, 5 * bs, (byte) 0);
    java.util.Arrays.fill(want, 7 * bs, 8 * bs, (byte) 0);
    System.arraycopy(patch, 0, want, 7 * bs + 50, 100);
    assertArrayEquals(want, h.read(a, 0, 10 * bs));
    Allocation holes =
        h.call((StoreCompletion<Allocation> c) -> h.shard.allocation(a, bs, 9 * bs - 10, c));
    assertEquals(new Allocation(10 * bs, new long[] {bs, 2 * bs, 5 * bs, 10 * bs - 10}), holes);
    assertEquals(10 * bs, sizeOf(a), "a punch keeps the size");
    assertEquals(7, h.shard.stats().liveBlocks(), "punched blocks still counted live");
    h.crashAndRemount();
    assertArrayEquals(want, h.read(a, 0, 10 * bs));
    h.remount();
    assertArrayEquals(want, h.read(a, 0, 10 * bs));
    assertEquals(
        holes,
        h.call((StoreCompletion<Allocation> c) -> h.shard.allocation(a, bs, 9 * bs - 10, c)));
    StoreException bad =
        assertThrows(
            StoreException.class,
            () -> h.call((StoreCompletion<Void> c) -> h.shard.punch(a, 100, bs, c)));
    assertEquals(StoreException.Code.INVALID, bad.code());
    StoreException missing =
        assertThrows(
            StoreException.class,
            () ->
                h.call(
                    (StoreCompletion<Void> c) ->
                        h.shard.punch(new ObjectKey(1, "none"), 0, bs, c)));
    assertEquals(StoreException.Code.NOT_FOUND, missing.code());
  }

  int sizeOf(ObjectKey k) throws IOException {
    try {
      ObjectStat st = h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(k, c));
      return (int) st.size();
    } catch (StoreException e) {
      return 0;
    }
  }

  @Test
  void readOfMoreFragmentsThanQueueSlotsCompletes() throws IOException {
    int blocks = 300; // more single-block runs than the simulated queue's 256 slots
    byte[] model = new byte[blocks * 4096];
    for (int b = blocks - 1; b >= 0; b--) {
      byte[] d = bytes(4096, b);
      System.arraycopy(d, 0, model, b * 4096, 4096);
      h.write(a, b * 4096L, d);
    }
    assertArrayEquals(model, h.read(a, 0, model.length));
  }

  @Test
  void checkpointsBoundReplay() throws IOException {
    byte[] d = bytes(60_000, 8);
    for (int i = 0; i < 40; i++) {
      h.write(new ObjectKey(1, "c" + i), 0, d);
    }
    h.remount();
    assertEquals(0, ((LogShard) h.shard).replayedRecords(), "clean close leaves nothing to replay");
    for (int i = 0; i < 40; i++) {
      h.write(new ObjectKey(1, "c" + i), 4096, d);
    }
    long records = h.shard.stats().records();
    h.awaitIdle();
    h.crashAndRemount();
    long replayed = ((LogShard) h.shard).replayedRecords();
    assertTrue(replayed < records, "replayed " + replayed + " of " + records + " records");
    byte[] expect = new byte[4096 + d.length];
    System.arraycopy(d, 0, expect, 0, d.length);
    System.arraycopy(d, 0, expect, 4096, d.length);
    for (int i = 0; i < 40; i++) {
      assertArrayEquals(expect, h.read(new ObjectKey(1, "c" + i), 0, expect.length));
    }
  }

  @Test
  void holesReadAsZeros() throws IOException {
    h.write(a, 100_000, new byte[] {7});
    byte[] all = h.read(a, 0, 100_001);
    assertEquals(100_001, all.length);
    for (int i = 0; i < 100_000; i++) {
      assertEquals(0, all[i]);
    }
    assertEquals(7, all[100_000]);
    ObjectStat st = h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(a, c));
    assertEquals(1, st.allocatedBlocks());
  }

  @Test
  void truncateShrinksAndGrowsWithZeros() throws IOException {
    byte[] d = bytes(20000, 3);
    h.write(a, 0, d);
    h.call((StoreCompletion<Void> c) -> h.shard.truncate(a, 5000, c));
    assertArrayEquals(Arrays.copyOf(d, 5000), h.read(a, 0, 20000));
    h.call((StoreCompletion<Void> c) -> h.shard.truncate(a, 12000, c));
    byte[] grown = h.read(a, 0, 20000);
    assertEquals(12000, grown.length);
    assertArrayEquals(Arrays.copyOf(d, 5000), Arrays.copyOf(grown, 5000));
    for (int i = 5000; i < 12000; i++) {
      assertEquals(0, grown[i], "byte " + i + " after truncate down then up");
    }
    h.remount();
    assertArrayEquals(grown, h.read(a, 0, 20000));
  }

  @Test
  void removeThenRecreate() throws IOException {
    h.write(a, 0, bytes(9000, 4));
    h.call((StoreCompletion<Void> c) -> h.shard.remove(a, c));
    StoreException e = assertThrows(StoreException.class, () -> h.read(a, 0, 10));
    assertEquals(StoreException.Code.NOT_FOUND, e.code());
    e =
        assertThrows(
            StoreException.class, () -> h.call((StoreCompletion<Void> c) -> h.shard.remove(a, c)));
    assertEquals(StoreException.Code.NOT_FOUND, e.code());
    h.write(a, 4096, new byte[] {1, 2, 3});
    byte[] got = h.read(a, 0, 8192);
    assertEquals(4099, got.length);
    assertEquals(0, got[0]);
    assertEquals(3, got[4098]);
    h.remount();
    assertArrayEquals(got, h.read(a, 0, 8192));
  }

  @Test
  void listPaginatesInNameOrderByPoolAndPrefix() throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 23; i++) {
      names.add(String.format("img.%03d", i));
      h.write(new ObjectKey(2, names.get(i)), 0, new byte[] {1});
    }
    h.write(new ObjectKey(2, "other"), 0, new byte[] {1});
    h.write(new ObjectKey(3, "img.999"), 0, new byte[] {1});
    List<String> seen = new ArrayList<>();
    ObjectKey after = null;
    int pages = 0;
    do {
      ObjectKey from = after;
      ListPage page = h.call((StoreCompletion<ListPage> c) -> h.shard.list(2, "img.", from, 5, c));
      page.keys().forEach(k -> seen.add(k.name()));
      after = page.next();
      pages++;
    } while (after != null);
    assertEquals(names, seen);
    assertEquals(5, pages);
  }

  @Test
  void xattrsSetGetRemoveAndSurviveRemount() throws IOException {
    h.call((StoreCompletion<Void> c) -> h.shard.setXattr(a, "user.color", new byte[] {9, 8}, c));
    assertArrayEquals(
        new byte[] {9, 8},
        h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(a, "user.color", c)));
    h.remount();
    assertArrayEquals(
        new byte[] {9, 8},
        h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(a, "user.color", c)));
    h.call((StoreCompletion<Void> c) -> h.shard.removeXattr(a, "user.color", c));
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(a, "user.color", c)));
    assertEquals(StoreException.Code.NO_ATTRIBUTE, e.code(), "the object is there, the xattr not");
    StoreException noObject =
        assertThrows(
            StoreException.class,
            () ->
                h.call(
                    (StoreCompletion<byte[]> c) ->
                        h.shard.getXattr(new ObjectKey(1, "nobody"), "user.color", c)));
    assertEquals(StoreException.Code.NOT_FOUND, noObject.code());
  }

  @Test
  void badInputGetsClearErrors() {
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> h.write(a, io.tidestore.store.api.ShardStore.MAX_OBJECT_BYTES, new byte[1]));
    assertEquals(StoreException.Code.INVALID, e.code());
    e =
        assertThrows(
            StoreException.class, () -> h.write(a, 0, new byte[(int) h.shard.maxWriteBytes() + 1]));
    assertEquals(StoreException.Code.INVALID, e.code());
    assertThrows(IllegalArgumentException.class, () -> new ObjectKey(1, "x".repeat(1025)));
    e =
        assertThrows(
            StoreException.class,
            () -> h.call((StoreCompletion<Void> c) -> h.shard.setXattr(a, "", new byte[0], c)));
    assertEquals(StoreException.Code.INVALID, e.code());
  }

  @Test
  void ownerThreadIsEnforced() throws Exception {
    Throwable[] thrown = new Throwable[1];
    Thread t =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    h.shard.stat(a, (v, e) -> {});
                  } catch (IllegalStateException e) {
                    thrown[0] = e;
                  }
                });
    t.join();
    assertTrue(thrown[0] instanceof IllegalStateException);
  }

  @Test
  void stateSurvivesCrashWithoutCheckpoint() throws IOException {
    byte[] d = bytes(50000, 5);
    h.write(a, 0, d);
    h.call((StoreCompletion<Void> c) -> h.shard.setXattr(a, "k", new byte[] {1}, c));
    h.crashAndRemount();
    assertArrayEquals(d, h.read(a, 0, 60000));
    assertNull(null);
    assertArrayEquals(
        new byte[] {1}, h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(a, "k", c)));
  }
}
