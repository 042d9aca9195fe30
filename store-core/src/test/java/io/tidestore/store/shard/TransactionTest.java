package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.api.Transaction;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ShardStore#submit} on a real shard: every operation of a transaction applies, in order, or
 * none does; across a clean remount, a replay and power cuts at random points.
 */
class TransactionTest {
  private static final ObjectKey A = new ObjectKey(1, "a");
  private static final ObjectKey B = new ObjectKey(1, "b");
  private static final ObjectKey META = new ObjectKey(2, "pgmeta");

  @TempDir Path dir;
  StoreHarness h;

  @BeforeEach
  void setUp() throws IOException {
    h = new StoreHarness(dir, 5, StoreHarness.testConfig());
  }

  @AfterEach
  void tearDown() throws IOException {
    h.close();
  }

  private void commit(Transaction t) throws IOException {
    h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
  }

  private static MemorySegment bytes(int n, int seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return MemorySegment.ofArray(b);
  }

  private static byte[] array(MemorySegment s) {
    return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
  }

  private byte[] xattr(ObjectKey key, String name) throws IOException {
    return h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(key, name, c));
  }

  private StoreException.Code statFailure(ObjectKey key) {
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(key, c)));
    return e.code();
  }

  @Test
  void everyOperationAppliesInOrderAndSurvivesRemountAndReplay() throws IOException {
    h.write(A, 0, array(bytes(3 * 4096, 1)));
    MemorySegment patch = bytes(100, 2);
    MemorySegment bData = bytes(9000, 3);
    Transaction t =
        new Transaction()
            .write(A, 5000, patch) // inside block 1: merged onto what is on disk
            .truncate(A, 7000) // cuts inside block 1, after the patch
            .setXattr(A, "v", new byte[] {7})
            .write(B, 10, bData)
            .punch(B, 4096, 4096)
            .setXattr(META, "log.1", new byte[] {1, 2, 3})
            .removeXattr(META, "absent")
            .remove(new ObjectKey(1, "missing"));
    commit(t);

    byte[] a = array(bytes(3 * 4096, 1));
    System.arraycopy(array(patch), 0, a, 5000, 100);
    byte[] expectA = Arrays.copyOf(a, 7000);
    byte[] expectB = new byte[9010];
    System.arraycopy(array(bData), 0, expectB, 10, 9000);
    Arrays.fill(expectB, 4096, 8192, (byte) 0);
    for (int round = 0; round < 3; round++) {
      assertArrayEquals(expectA, h.read(A, 0, 20000), "round " + round);
      assertArrayEquals(expectB, h.read(B, 0, 20000), "round " + round);
      assertArrayEquals(new byte[] {7}, xattr(A, "v"));
      assertArrayEquals(new byte[] {1, 2, 3}, xattr(META, "log.1"));
      assertEquals(Code.NOT_FOUND, statFailure(new ObjectKey(1, "missing")));
      if (round == 0) {
        h.crashAndRemount(); // the record replays
      } else if (round == 1) {
        h.remount(); // from the checkpoint
      }
    }
  }

  @Test
  void anInvalidOperationFailsTheWholeTransactionWithNothingApplied() throws IOException {
    h.write(A, 0, array(bytes(4096, 1)));
    Transaction t =
        new Transaction()
            .write(A, 0, bytes(4096, 9))
            .write(B, 0, bytes(10, 9))
            .setXattr(META, "", new byte[1]); // an empty attribute name
    StoreException e = assertThrows(StoreException.class, () -> commit(t));
    assertEquals(Code.INVALID, e.code());
    assertTrue(e.getMessage().contains("operation 2"), e.getMessage());
    assertArrayEquals(array(bytes(4096, 1)), h.read(A, 0, 4096));
    assertEquals(Code.NOT_FOUND, statFailure(B));
    assertEquals(Code.NOT_FOUND, statFailure(META));
    h.awaitIdle();
    assertEquals(0, ((LogShard) h.shard).stagedObjects());
  }

  @Test
  void aTransactionLargerThanOneRecordIsRefusedWhole() throws IOException {
    // Three 60 KiB attributes need more delta room than one 128 KiB segment holds.
    Transaction t = new Transaction().write(A, 0, bytes(4096, 1));
    for (int i = 0; i < 3; i++) {
      t.setXattr(META, "big" + i, new byte[60 << 10]);
    }
    StoreException e = assertThrows(StoreException.class, () -> commit(t));
    assertEquals(Code.INVALID, e.code());
    assertTrue(e.getMessage().contains("more than one segment holds"), e.getMessage());
    assertEquals(Code.NOT_FOUND, statFailure(A));
    assertEquals(Code.NOT_FOUND, statFailure(META));

    Transaction data = new Transaction().write(A, 0, bytes((int) h.shard.maxWriteBytes(), 2));
    data.write(B, 0, bytes(4096, 3));
    e = assertThrows(StoreException.class, () -> commit(data));
    assertEquals(Code.INVALID, e.code());
    assertEquals(Code.NOT_FOUND, statFailure(B));
  }

  @Test
  void anObjectHoldsAtMostMaxXattrsAttributes() throws IOException {
    Transaction t = new Transaction();
    for (int i = 0; i < ShardStore.MAX_XATTRS; i++) {
      t.setXattr(META, Integer.toString(i, 36), new byte[0]);
      if (t.size() == 4000 || i == ShardStore.MAX_XATTRS - 1) {
        commit(t);
        t.clear();
      }
    }
    t.setXattr(META, "0", new byte[] {1}); // an existing name is no new attribute
    commit(t);
    t.clear();
    t.setXattr(META, "one-too-many", new byte[0]);
    StoreException e = assertThrows(StoreException.class, () -> commit(t));
    assertEquals(Code.INVALID, e.code());
    StoreException single =
        assertThrows(
            StoreException.class,
            () ->
                h.call(
                    (StoreCompletion<Void> c) ->
                        h.shard.setXattr(META, "one-too-many", new byte[0], c)));
    assertEquals(Code.INVALID, single.code(), single.getMessage());
    h.remount(); // the checkpoint counts them in 16 bits
    assertEquals(
        ShardStore.MAX_XATTRS,
        h.call(
                (StoreCompletion<java.util.SortedMap<String, byte[]>> c) ->
                    h.shard.getXattrs(META, "", c))
            .size());
    assertArrayEquals(new byte[] {1}, xattr(META, "0"));
  }

  /** Every kind of operation past the arrays' first capacity (they grow as operations come). */
  @Test
  void manyOperationsOfEveryKindInOneTransaction() throws IOException {
    Transaction t = new Transaction();
    for (int i = 0; i < 40; i++) {
      t.setXattr(META, "k" + i, new byte[] {(byte) i});
    }
    commit(t);
    t.clear();
    for (int i = 0; i < 40; i++) {
      t.removeXattr(META, "k" + i);
      t.truncate(A, 4096L * (1 + i % 3)); // whole blocks: no block to rewrite per cut
      t.touch(B);
    }
    commit(t);
    assertEquals(
        0,
        h.call(
                (StoreCompletion<java.util.SortedMap<String, byte[]>> c) ->
                    h.shard.getXattrs(META, "k", c))
            .size());
    assertEquals(4096, h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(A, c)).size());
  }

  @Test
  void removalsOfWhatIsMissingDoNothingAndCreateNothing() throws IOException {
    ObjectKey ghost = new ObjectKey(1, "ghost");
    commit(
        new Transaction()
            .remove(ghost)
            .punch(ghost, 0, 4096)
            .removeXattr(ghost, "x")
            .touch(A)
            .remove(A)); // created and removed in the same record
    assertEquals(Code.NOT_FOUND, statFailure(ghost));
    assertEquals(Code.NOT_FOUND, statFailure(A));
    ListPage page = h.call((StoreCompletion<ListPage> c) -> h.shard.list(1, "", null, 10, c));
    assertEquals(0, page.keys().size(), page.keys().toString());
    h.crashAndRemount();
    assertEquals(Code.NOT_FOUND, statFailure(A));
  }

  @Test
  void laterMutationsOfItsObjectsWaitForAWaitingTransaction() throws IOException {
    h.write(A, 0, array(bytes(8192, 1)));
    h.remount(); // nothing in memory: the transaction's partial write must read its base
    StringBuilder acks = new StringBuilder();
    StoreException[] failure = {null};
    h.shard.submit(
        new Transaction().write(A, 100, bytes(10, 2)).setXattr(B, "x", new byte[] {1}),
        (v, e) -> {
          acks.append("txn ");
          failure[0] = failure[0] != null ? failure[0] : e;
        });
    // Issued while the transaction waits for its read: it must land after it, not under it.
    h.shard.write(
        A,
        100,
        MemorySegment.ofArray(new byte[] {42}),
        (v, e) -> {
          acks.append("write ");
          failure[0] = failure[0] != null ? failure[0] : e;
        });
    h.awaitIdle();
    assertNull(failure[0]);
    assertEquals("txn write ", acks.toString());
    byte[] expect = array(bytes(8192, 1));
    System.arraycopy(array(bytes(10, 2)), 0, expect, 100, 10);
    expect[100] = 42;
    assertArrayEquals(expect, h.read(A, 0, 8192));
    assertArrayEquals(new byte[] {1}, xattr(B, "x"));
  }

  /**
   * Transactions that each set three objects and an attribute to the same generation, many in
   * flight, then a power cut at a random point: after the remount every object and the attribute
   * show one and the same generation, at least the newest acknowledged one.
   */
  @Test
  void aPowerCutLeavesWholeTransactionsOnly() throws IOException {
    Random r = new Random(17);
    ObjectKey[] objects = {A, B, new ObjectKey(1, "c")};
    int generation = 0;
    for (int cut = 0; cut < 40; cut++) {
      int acked = current(objects);
      int[] newestAcked = {acked};
      int issue = 1 + r.nextInt(12);
      for (int k = 0; k < issue; k++) {
        int g = ++generation;
        Transaction t = new Transaction();
        for (ObjectKey o : objects) {
          // 3 blocks plus an unaligned tail: whole blocks, a partial one, and a size change.
          t.write(o, 0, generationBytes(g, 3 * 4096 + g % 97));
          t.truncate(o, 3 * 4096 + g % 97);
        }
        t.setXattr(META, "gen", ByteBuffer.allocate(4).putInt(g).array());
        h.shard.submit(
            t,
            (v, e) -> {
              if (e == null) {
                newestAcked[0] = Math.max(newestAcked[0], g);
              }
            });
        for (int p = r.nextInt(3); p > 0; p--) {
          h.pass();
        }
      }
      h.crashAndRemount();
      int after = current(objects);
      assertTrue(
          after >= newestAcked[0],
          "cut " + cut + ": generation " + after + " < acknowledged " + newestAcked[0]);
      generation = after;
    }
  }

  private static MemorySegment generationBytes(int g, int length) {
    byte[] b = new byte[length];
    Arrays.fill(b, (byte) g);
    ByteBuffer.wrap(b).putInt(g);
    return MemorySegment.ofArray(b);
  }

  /** The one generation every object and META's attribute show (0 before the first). */
  private int current(ObjectKey[] objects) throws IOException {
    int g;
    try {
      g = ByteBuffer.wrap(xattr(META, "gen")).getInt();
    } catch (StoreException e) {
      for (ObjectKey o : objects) {
        assertEquals(Code.NOT_FOUND, statFailure(o), "an object without the attribute");
      }
      return 0;
    }
    for (ObjectKey o : objects) {
      byte[] expect = array(generationBytes(g, 3 * 4096 + g % 97));
      assertArrayEquals(expect, h.read(o, 0, 5 * 4096), o.name() + " is not at generation " + g);
    }
    return g;
  }

  /**
   * Random transactions and single writes over a few objects, many in flight and the cleaner busy
   * (overwrites on a small shard), against a model applied in issue order: per-object order holds
   * across transactions, partial blocks merge onto the right content, and all of it replays.
   */
  @ParameterizedTest
  @ValueSource(ints = {23, 24, 25, 26})
  void randomTransactionsAndWritesMatchAModel(int seed) throws IOException {
    randomAgainstModel(seed, 6, 60_000, false);
  }

  /**
   * The same, with most of the shard's capacity live and no removals: the cleaner relocates and
   * transactions wait for space.
   */
  @ParameterizedTest
  @ValueSource(ints = {31, 32})
  void randomTransactionsOnAFullShardMatchAModel(int seed) throws IOException {
    ShardStats stats = randomAgainstModel(seed, 8, 340_000, true);
    assertTrue(stats.segmentsCleaned() > 0, "the cleaner never ran: " + stats);
  }

  /** Runs the random operations, checks the model, returns the stats from before the remounts. */
  private ShardStats randomAgainstModel(int seed, int objects, int span, boolean full)
      throws IOException {
    Random r = new Random(seed);
    ObjectKey[] keys = new ObjectKey[objects];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new ObjectKey(1, "o" + i);
    }
    java.util.Map<ObjectKey, byte[]> data = new java.util.HashMap<>();
    java.util.Map<ObjectKey, java.util.Map<String, byte[]>> attrs = new java.util.HashMap<>();
    StoreException[] failure = {null};
    StoreCompletion<Void> check = (v, e) -> failure[0] = failure[0] != null ? failure[0] : e;
    if (full) {
      for (ObjectKey k : keys) {
        for (int off = 0; off < span; off += 100_000) {
          MemorySegment d = bytes(Math.min(100_000, span - off), r.nextInt());
          modelWrite(data, attrs, k, off, array(d));
          h.write(k, off, array(d));
        }
      }
    }
    for (int step = 0; step < (full ? 1500 : 600); step++) {
      if (r.nextInt(3) == 0) {
        ObjectKey k = keys[r.nextInt(keys.length)];
        long off = r.nextInt(span);
        MemorySegment d = bytes(1 + r.nextInt(9000), r.nextInt());
        modelWrite(data, attrs, k, off, array(d));
        h.shard.write(k, off, d, check);
      } else {
        Transaction t = new Transaction();
        for (int n = 1 + r.nextInt(5); n > 0; n--) {
          ObjectKey k = keys[r.nextInt(keys.length)];
          int op = r.nextInt(7);
          if (full && (op == 4 || (op == 2 && r.nextInt(8) != 0))) {
            op = 0; // keep the data live: no removals, few truncates
          }
          switch (op) {
            case 0, 1 -> {
              long off = r.nextInt(span);
              MemorySegment d = bytes(r.nextInt(9000), r.nextInt());
              t.write(k, off, d);
              modelWrite(data, attrs, k, off, array(d));
            }
            case 2 -> {
              long size = r.nextInt(span + 4000);
              t.truncate(k, size);
              byte[] old = data.get(k);
              data.put(k, Arrays.copyOf(old == null ? new byte[0] : old, (int) size));
              attrs.computeIfAbsent(k, x -> new java.util.HashMap<>());
            }
            case 3 -> {
              long off = (long) r.nextInt(span / 4096) * 4096;
              long len = (long) r.nextInt(4) * 4096;
              t.punch(k, off, len);
              byte[] old = data.get(k);
              if (old != null) {
                Arrays.fill(
                    old,
                    (int) Math.min(off, old.length),
                    (int) Math.min(off + len, old.length),
                    (byte) 0);
              }
            }
            case 4 -> {
              t.remove(k);
              data.remove(k);
              attrs.remove(k);
            }
            case 5 -> {
              byte[] v = array(bytes(1 + r.nextInt(40), r.nextInt()));
              String name = "x" + r.nextInt(3);
              t.setXattr(k, name, v);
              data.putIfAbsent(k, new byte[0]);
              attrs.computeIfAbsent(k, x -> new java.util.HashMap<>()).put(name, v);
            }
            default -> {
              t.touch(k);
              data.putIfAbsent(k, new byte[0]);
              attrs.computeIfAbsent(k, x -> new java.util.HashMap<>());
            }
          }
        }
        h.shard.submit(t, check);
      }
      for (int p = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0; p > 0; p--) {
        h.pass();
      }
    }
    h.awaitIdle();
    assertNull(failure[0]);
    ShardStats stats = h.shard.stats();
    for (int round = 0; round < 3; round++) {
      for (ObjectKey k : keys) {
        byte[] expect = data.get(k);
        if (expect == null) {
          assertEquals(Code.NOT_FOUND, statFailure(k), k.name() + " round " + round);
          continue;
        }
        assertArrayEquals(expect, h.read(k, 0, span + 20_000), k.name() + " round " + round);
        for (int x = 0; x < 3; x++) {
          byte[] v = attrs.get(k).get("x" + x);
          if (v != null) {
            assertArrayEquals(v, xattr(k, "x" + x), k.name() + " x" + x + " round " + round);
          }
        }
      }
      if (round == 0) {
        h.crashAndRemount();
      } else if (round == 1) {
        h.remount();
      }
    }
    return stats;
  }

  private static void modelWrite(
      java.util.Map<ObjectKey, byte[]> data,
      java.util.Map<ObjectKey, java.util.Map<String, byte[]>> attrs,
      ObjectKey k,
      long off,
      byte[] d) {
    byte[] old = data.get(k);
    byte[] now = old == null ? new byte[0] : old;
    if (off + d.length > now.length && d.length > 0) {
      now = Arrays.copyOf(now, (int) (off + d.length));
    }
    System.arraycopy(d, 0, now, (int) off, d.length);
    data.put(k, now);
    attrs.computeIfAbsent(k, x -> new java.util.HashMap<>());
  }
}
