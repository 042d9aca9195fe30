package io.tidestore.cluster.pg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.placement.PgId;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PG log in a real store: each operation's data, log entry and object version commit in one
 * transaction; the log reloads from the store as it was committed, after a clean remount and after
 * power cuts at random points (where every committed entry's object holds exactly that entry's
 * data); trimming removes entries and keeps the tail.
 */
class PgLogStoreTest {
  private static final PgId PG = new PgId(3, 0x2f);

  @TempDir Path dir;
  StoreHarness h;

  @BeforeEach
  void setUp() throws IOException {
    h = new StoreHarness(dir, 9, StoreHarness.testConfig());
  }

  @AfterEach
  void tearDown() throws IOException {
    h.close();
  }

  private PgLog reload() throws IOException {
    try {
      SortedMap<String, byte[]> attrs =
          h.call(
              (StoreCompletion<SortedMap<String, byte[]>> c) ->
                  h.shard.getXattrs(PgMeta.metaKey(PG), "", c));
      return PgLog.load(PG, attrs);
    } catch (StoreException e) {
      assertEquals(StoreException.Code.NOT_FOUND, e.code());
      return PgLog.empty(PG);
    }
  }

  /** Data of object {@code name} at version {@code v}: says which, so a mismatch is visible. */
  private static byte[] payload(String name, Eversion v) {
    byte[] b = new byte[5000];
    ByteBuffer.wrap(b).putLong(v.version()).putInt(name.hashCode());
    new Random(v.version()).nextBytes(java.util.Arrays.copyOfRange(b, 12, 100));
    return b;
  }

  private PgLogEntry write(PgLog log, Transaction t, String name, long epoch) {
    Eversion prior = versionInMemory.getOrDefault(name, Eversion.ZERO);
    Eversion v = log.nextVersion(epoch);
    PgLogEntry e = new PgLogEntry(PgLogEntry.Op.MODIFY, name, v, prior, 7, v.version());
    t.clear();
    t.write(PgMeta.objectKey(PG.pool(), name), 0, MemorySegment.ofArray(payload(name, v)));
    log.stage(t, e);
    versionInMemory.put(name, v);
    return e;
  }

  private final java.util.HashMap<String, Eversion> versionInMemory = new java.util.HashMap<>();

  @Test
  void entriesCommitWithTheirDataAndReloadInOrder() throws IOException {
    PgLog log = PgLog.empty(PG);
    Transaction t = new Transaction();
    for (int i = 0; i < 20; i++) {
      PgLogEntry e = write(log, t, "obj" + (i % 4), 5 + i / 10);
      h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
      log.committed(e);
    }
    assertEquals(new Eversion(6, 20), log.head());
    h.remount();
    PgLog loaded = reload();
    assertEquals(log.entries(), loaded.entries());
    assertEquals(new Eversion(6, 21), loaded.nextVersion(6), "versions continue after a reload");
    byte[] v =
        h.call(
            (StoreCompletion<byte[]> c) ->
                h.shard.getXattr(PgMeta.objectKey(PG.pool(), "obj3"), PgMeta.VERSION, c));
    assertEquals(new Eversion(6, 20), PgMeta.decodeEversion(v));
  }

  @Test
  void trimRemovesTheOldestEntriesAndKeepsTheTail() throws IOException {
    PgLog log = PgLog.empty(PG);
    Transaction t = new Transaction();
    for (int i = 0; i < 10; i++) {
      PgLogEntry e = write(log, t, "o" + i, 1);
      h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
      log.committed(e);
    }
    t.clear();
    Eversion newTail = log.stageTrim(t, new Eversion(1, 7), 4);
    assertEquals(new Eversion(1, 4), newTail, "at most 4 per transaction");
    h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
    log.trimmed(newTail);
    t.clear();
    log.trimmed(log.stageTrim(t, new Eversion(1, 7), 4));
    h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
    assertEquals(new Eversion(1, 7), log.tail());
    assertEquals(3, log.size());
    h.crashAndRemount();
    PgLog loaded = reload();
    assertEquals(new Eversion(1, 7), loaded.tail());
    assertEquals(log.entries(), loaded.entries());
    assertEquals(
        List.of(10L),
        loaded.entriesAfter(new Eversion(1, 9)).stream().map(e -> e.version().version()).toList());
    t.clear();
    assertNull(loaded.stageTrim(t, new Eversion(1, 7), 10), "nothing left to trim");
  }

  @Test
  void theLogKeepsItsNewestEntriesAsNewOnesCome() throws IOException {
    PgLog log = PgLog.empty(PG);
    Transaction t = new Transaction();
    int ops = PgLog.KEEP + 200;
    for (int i = 0; i < ops; i++) {
      PgLogEntry e = write(log, t, "o" + (i % 7), 1);
      Eversion newTail = log.stageRollingTrim(t, e.version(), PgLog.KEEP);
      h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
      log.committed(e);
      if (newTail != null) {
        log.trimmed(newTail);
      }
    }
    // 16 per op once past KEEP: the log is back to KEEP entries long before 200 more ops.
    assertEquals(PgLog.KEEP, log.size());
    assertEquals(new Eversion(1, ops - PgLog.KEEP), log.tail());
    h.crashAndRemount();
    PgLog loaded = reload();
    assertEquals(log.tail(), loaded.tail());
    assertEquals(log.entries(), loaded.entries());
  }

  /**
   * A PG that is not clean keeps a longer log (what a member away missed stays in it), and once
   * clean again shortens it over its next writes, TRIM_PER_OP at a time, without a long trim.
   */
  @Test
  void aLogKeptLongWhileNotCleanShortensOnceClean() throws IOException {
    PgLog log = PgLog.empty(PG);
    Transaction t = new Transaction();
    int notClean = PgLog.KEEP * 2;
    int version = 0;
    for (; version < notClean + 50; version++) {
      appendTrimming(log, t, version, notClean);
    }
    assertEquals(notClean, log.size(), "the not-clean keep holds");
    int cleanWrites = (notClean - PgLog.KEEP) / (PgLog.TRIM_PER_OP - 1) + 1;
    for (int i = 0; i < cleanWrites - 1; i++, version++) {
      appendTrimming(log, t, version, PgLog.KEEP);
      assertTrue(log.size() > PgLog.KEEP, "shortened at most TRIM_PER_OP per write");
    }
    appendTrimming(log, t, version, PgLog.KEEP);
    assertEquals(PgLog.KEEP, log.size());
    h.crashAndRemount();
    assertEquals(log.entries(), reload().entries());
  }

  @Test
  void anOsdSharesItsNotCleanEntriesBetweenItsPgs() {
    assertEquals(PgLog.KEEP_NOT_CLEAN_MAX, PgLog.keepNotClean(1));
    assertEquals(PgLog.KEEP_PER_OSD / 64, PgLog.keepNotClean(64));
    assertEquals(PgLog.KEEP, PgLog.keepNotClean(100_000));
    assertEquals(PgLog.KEEP_NOT_CLEAN_MAX, PgLog.keepNotClean(0));
  }

  private void appendTrimming(PgLog log, Transaction t, int i, int keep) throws IOException {
    PgLogEntry e = write(log, t, "o" + (i % 7), 1);
    Eversion newTail = log.stageRollingTrim(t, e.version(), keep);
    h.call((StoreCompletion<Void> c) -> h.shard.submit(t, c));
    log.committed(e);
    if (newTail != null) {
      log.trimmed(newTail);
    }
  }

  /**
   * Operations in flight when the power goes: after the remount the log is a prefix of what was
   * staged that holds every acknowledged entry, and each object holds the data and version of its
   * newest entry in that log, never of a lost one.
   */
  @Test
  void aPowerCutKeepsLogAndDataTogether() throws IOException {
    Random r = new Random(4);
    PgLog log = PgLog.empty(PG);
    List<PgLogEntry> staged = new ArrayList<>();
    for (int cut = 0; cut < 25; cut++) {
      long[] acked = {log.head().version()};
      for (int k = 1 + r.nextInt(10); k > 0; k--) {
        Transaction t = new Transaction();
        PgLogEntry e = write(log, t, "obj" + r.nextInt(5), 2);
        staged.add(e);
        h.shard.submit(
            t,
            (v, f) -> {
              if (f == null) {
                acked[0] = Math.max(acked[0], e.version().version());
              }
            });
        for (int p = r.nextInt(3); p > 0; p--) {
          h.pass();
        }
      }
      h.crashAndRemount();
      log = reload();
      assertTrue(log.head().version() >= acked[0], "cut " + cut + ": lost an acknowledged entry");
      // The log is the staged prefix up to its head, with nothing missing in between.
      long head = log.head().version();
      List<PgLogEntry> prefix = staged.stream().filter(e -> e.version().version() <= head).toList();
      assertEquals(prefix, List.copyOf(log.entries().values()), "cut " + cut);
      staged.removeIf(e -> e.version().version() > head);
      versionInMemory.clear();
      for (PgLogEntry e : prefix) {
        versionInMemory.put(e.object(), e.version());
      }
      for (var o : versionInMemory.entrySet()) {
        var key = PgMeta.objectKey(PG.pool(), o.getKey());
        byte[] v = h.call((StoreCompletion<byte[]> c) -> h.shard.getXattr(key, PgMeta.VERSION, c));
        assertEquals(o.getValue(), PgMeta.decodeEversion(v), o.getKey());
        assertArrayEquals(payload(o.getKey(), o.getValue()), h.read(key, 0, 6000), o.getKey());
      }
    }
  }

  @Test
  void aCorruptOrMisnamedEntryIsRefusedOnLoad() {
    PgLogEntry e =
        new PgLogEntry(PgLogEntry.Op.DELETE, "x", new Eversion(2, 5), new Eversion(1, 1), 1, 1);
    java.util.TreeMap<String, byte[]> attrs = new java.util.TreeMap<>();
    attrs.put(PgMeta.logName(new Eversion(2, 6)), e.encode());
    IllegalArgumentException x =
        assertThrows(IllegalArgumentException.class, () -> PgLog.load(PG, attrs));
    assertTrue(x.getMessage().contains("holds the entry of 2'5"), x.getMessage());
    attrs.clear();
    byte[] bytes = e.encode();
    attrs.put(PgMeta.logName(e.version()), java.util.Arrays.copyOf(bytes, bytes.length - 1));
    assertThrows(IllegalArgumentException.class, () -> PgLog.load(PG, attrs));
    attrs.clear();
    attrs.put(PgMeta.logName(e.version()), e.encode());
    attrs.put(PgMeta.INFO, PgMeta.encode(new Eversion(2, 5)));
    x = assertThrows(IllegalArgumentException.class, () -> PgLog.load(PG, attrs));
    assertTrue(x.getMessage().contains("not after the log's tail"), x.getMessage());
  }

  @Test
  void entriesRoundTripAndPgsSpreadOverShards() {
    PgLogEntry e =
        new PgLogEntry(
            PgLogEntry.Op.MODIFY,
            "é/ü",
            new Eversion(0xffff_fffeL, 1L << 40),
            Eversion.ZERO,
            -1,
            42);
    assertEquals(e, PgLogEntry.decode(e.encode()));
    assertTrue(new Eversion(2, 1).sortKey().compareTo(new Eversion(1, 99).sortKey()) > 0);
    int[] perShard = new int[3];
    for (int seed = 0; seed < 64; seed++) {
      perShard[PgMeta.shardOf(new PgId(1, seed), 3)]++;
    }
    assertArrayEquals(new int[] {21, 22, 21}, perShard);
  }
}
