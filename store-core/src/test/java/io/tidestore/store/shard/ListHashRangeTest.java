package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.HashOrderMerge;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.testing.SimDisk;
import io.tidestore.store.testing.SimIoQueue;
import io.tidestore.store.testing.StoreCalls;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ShardStore#listHashRange} on real shards: every PG, listed page by page with small limits,
 * gives each of its objects exactly once and in hash order, after a replay and a checkpoint load,
 * after removals, from a cursor whose object is gone, and merged across the shards of a store.
 * Expected pages are computed here from first principles (CRC32C, stable_mod, bit reversal).
 */
class ListHashRangeTest {
  private static final long POOL = 7;

  @TempDir Path dir;
  StoreHarness h;

  @BeforeEach
  void setUp() throws IOException {
    h = new StoreHarness(dir, 11, StoreHarness.testConfig());
  }

  @AfterEach
  void tearDown() throws IOException {
    h.close();
  }

  private static int crc32c(String name) {
    CRC32C crc = new CRC32C();
    crc.update(name.getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }

  /** Ceph's stable_mod with its pg_num mask. */
  private static int pgOf(String name, int pgNum) {
    int hash = crc32c(name);
    int mask = (int) ((1L << (32 - Integer.numberOfLeadingZeros(pgNum - 1))) - 1);
    return (hash & mask) < pgNum ? hash & mask : hash & (mask >>> 1);
  }

  private static final Comparator<String> HASH_ORDER =
      Comparator.comparingLong((String n) -> Integer.toUnsignedLong(Integer.reverse(crc32c(n))))
          .thenComparing(Comparator.naturalOrder());

  /** The names of PG {@code seed} in hash order. */
  private static List<String> expected(List<String> names, int pgNum, int seed) {
    return names.stream().filter(n -> pgOf(n, pgNum) == seed).sorted(HASH_ORDER).toList();
  }

  /** Two different names with the same CRC32C (a birthday search; found within ~100k names). */
  private static List<String> collidingNames() {
    Map<Integer, String> seen = new HashMap<>();
    for (int i = 0; ; i++) {
      String name = "c" + i;
      String before = seen.putIfAbsent(crc32c(name), name);
      if (before != null) {
        return List.of(before, name);
      }
    }
  }

  /** Names like rbd's, some not ASCII, and two of equal hash. */
  private static List<String> names(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add(String.format(i % 10 == 0 ? "obj-é-%d" : "rbd_data.5f3a.%016x", i));
    }
    names.addAll(collidingNames());
    return names;
  }

  private void apply(List<String> names, long pool, boolean remove) throws IOException {
    List<StoreException> failures = new ArrayList<>();
    StoreCompletion<Void> done =
        (v, e) -> {
          if (e != null) {
            failures.add(e);
          }
        };
    for (String name : names) {
      ObjectKey key = new ObjectKey(pool, name);
      if (remove) {
        h.shard.remove(key, done);
      } else {
        h.shard.truncate(key, 100, done); // creates the object, no data blocks
      }
    }
    h.awaitIdle();
    assertEquals(List.of(), failures);
  }

  /** Pages through {@code range} of {@code pool}, checking each page's shape. */
  private List<String> listAll(HashRange range, ObjectKey from, int limit) throws IOException {
    List<String> names = new ArrayList<>();
    ObjectKey after = from;
    int pages = 0;
    do {
      ObjectKey cursor = after;
      ListPage page =
          h.call(
              (StoreCompletion<ListPage> c) ->
                  h.shard.listHashRange(POOL, range, cursor, limit, c));
      assertPageMovesOn(page, cursor, ++pages);
      assertTrue(page.keys().size() <= limit);
      if (!page.isLast()) {
        assertEquals(limit, page.keys().size(), "a page short of the limit before the end");
        assertEquals(page.keys().getLast(), page.next());
      }
      page.keys().forEach(k -> names.add(k.name()));
      after = page.next();
    } while (after != null);
    return names;
  }

  /** Fails rather than looping forever when a cursor does not move past its own key. */
  private static void assertPageMovesOn(ListPage page, ObjectKey cursor, int pages) {
    assertTrue(cursor == null || !page.keys().contains(cursor), "the cursor's key came again");
    assertTrue(pages < 10_000, "paging does not end");
  }

  private void assertEveryPgListsItsObjects(List<String> model) throws IOException {
    for (int pgNum : new int[] {1, 12, 16}) {
      List<String> all = new ArrayList<>();
      for (int seed = 0; seed < pgNum; seed++) {
        List<String> got = listAll(HashRange.ofPg(pgNum, seed), null, 1 + seed % 4);
        assertEquals(expected(model, pgNum, seed), got, "pg_num " + pgNum + " seed " + seed);
        all.addAll(got);
      }
      assertEquals(model.size(), all.size(), "pg_num " + pgNum + ": an object listed twice or not");
      assertEquals(new HashSet<>(model), new HashSet<>(all));
    }
  }

  @Test
  void everyPgListsEachOfItsObjectsOnceInHashOrderAfterReplayAndCheckpoint() throws IOException {
    List<String> model = names(300);
    apply(model, POOL, false);
    // Other pools, some with the same names, are not listed.
    apply(model.subList(0, 20), POOL + 1, false);
    apply(model.subList(20, 40), POOL - 1, false);
    assertEveryPgListsItsObjects(model);
    h.crashAndRemount();
    assertTrue(((LogShard) h.shard).replayedRecords() > 0, "the crash left nothing to replay");
    assertEveryPgListsItsObjects(model);
    h.remount();
    assertEveryPgListsItsObjects(model);
  }

  @Test
  void equalHashesOrderByNameAndACursorBetweenThemResumes() throws IOException {
    List<String> pair = collidingNames().stream().sorted().toList();
    apply(pair, POOL, false);
    apply(List.of("x", "y", "z"), POOL, false);
    List<String> all = listAll(HashRange.ALL, null, 1);
    int at = all.indexOf(pair.get(0));
    assertEquals(pair.get(1), all.get(at + 1), "equal hashes are not ordered by name: " + all);
    assertEquals(
        all.subList(at + 1, all.size()),
        listAll(HashRange.ALL, new ObjectKey(POOL, pair.get(0)), 2));
  }

  @Test
  void removedObjectsAreNotListedAndACursorOutlivesItsObject() throws IOException {
    List<String> created = names(120);
    apply(created, POOL, false);
    List<String> removed = new ArrayList<>();
    List<String> model = new ArrayList<>();
    for (int i = 0; i < created.size(); i++) {
      (i % 3 == 0 ? removed : model).add(created.get(i));
    }
    apply(removed, POOL, true);
    assertEveryPgListsItsObjects(model);

    // A backfill pages through a PG while clients remove objects, the cursor's own included.
    HashRange pg = HashRange.ofPg(4, 1);
    List<String> inPg = expected(model, 4, 1);
    ListPage first =
        h.call((StoreCompletion<ListPage> c) -> h.shard.listHashRange(POOL, pg, null, 5, c));
    ObjectKey cursor = first.next();
    assertNotNull(cursor);
    String alsoGone = inPg.get(inPg.indexOf(cursor.name()) + 1);
    apply(List.of(cursor.name(), alsoGone), POOL, true);
    List<String> rest = new ArrayList<>(inPg.subList(inPg.indexOf(cursor.name()) + 1, inPg.size()));
    rest.remove(alsoGone);
    assertEquals(rest, listAll(pg, cursor, 3));
    model.remove(cursor.name());
    model.remove(alsoGone);
    h.crashAndRemount();
    assertEveryPgListsItsObjects(model);
  }

  /** Listing sees the applied state: a create or remove in flight shows once it has applied. */
  @Test
  void mutationsInFlightShowOnceApplied() throws IOException {
    apply(List.of("old"), POOL, false);
    List<String> before = listAll(HashRange.ALL, null, 10);
    h.shard.truncate(new ObjectKey(POOL, "new"), 1, (v, e) -> {});
    h.shard.remove(new ObjectKey(POOL, "old"), (v, e) -> {});
    assertEquals(before, listAll(HashRange.ALL, null, 10), "saw a mutation before it applied");
    h.awaitIdle();
    assertEquals(List.of("new"), listAll(HashRange.ALL, null, 10));
  }

  @Test
  void badArgumentsAreInvalidAndTheShardKeepsServing() throws IOException {
    apply(List.of("a"), POOL, false);
    ObjectKey otherPool = new ObjectKey(POOL + 1, "a");
    assertInvalid(c -> h.shard.listHashRange(POOL, HashRange.ALL, null, 0, c));
    assertInvalid(c -> h.shard.listHashRange(POOL, HashRange.ALL, null, -1, c));
    assertInvalid(c -> h.shard.listHashRange(POOL, null, null, 10, c));
    assertInvalid(c -> h.shard.listHashRange(-1, HashRange.ALL, null, 10, c));
    assertInvalid(c -> h.shard.listHashRange(POOL, HashRange.ALL, otherPool, 10, c));
    assertEquals(List.of("a"), listAll(HashRange.ALL, null, Integer.MAX_VALUE));
    assertEquals(List.of(), listAll(new HashRange(5, 5), null, 10));
  }

  private void assertInvalid(Consumer<StoreCompletion<ListPage>> op) {
    StoreException e = assertThrows(StoreException.class, () -> h.call(op));
    assertEquals(StoreException.Code.INVALID, e.code());
  }

  /** A PG's objects are on every shard; listing each and merging gives the PG, paged. */
  @Test
  void mergedShardPagesListAPgOfAStore(@TempDir Path storeDir) throws IOException {
    int shardCount = 3;
    StoreFormat.mkfs(storeDir, shardCount, StoreHarness.SHARD_BYTES, StoreHarness.SEGMENT_BYTES);
    SimDisk disk = new SimDisk(3);
    List<String> model = names(150);
    try (ObjectStore store = LogStore.open(storeDir, StoreHarness.testConfig())) {
      SimIoQueue queue = disk.newQueue();
      ShardStore[] shards = new ShardStore[shardCount];
      for (int s = 0; s < shardCount; s++) {
        shards[s] = store.mountShard(s, queue, ExtentCacheHook.NONE);
      }
      int[] perShard = new int[shardCount];
      for (String name : model) {
        ObjectKey key = new ObjectKey(POOL, name);
        int s = store.shardOf(key);
        perShard[s]++;
        StoreCalls.call(
            shards[s], queue, (StoreCompletion<Void> c) -> shards[s].truncate(key, 1, c));
      }
      for (int n : perShard) {
        assertTrue(n > 0, "a shard holds none of the objects");
      }
      int pgNum = 6;
      for (int seed = 0; seed < pgNum; seed++) {
        HashRange pg = HashRange.ofPg(pgNum, seed);
        int limit = 4;
        List<String> got = new ArrayList<>();
        ObjectKey after = null;
        int pageCount = 0;
        do {
          ObjectKey cursor = after;
          List<ListPage> pages = new ArrayList<>();
          for (ShardStore shard : shards) {
            pages.add(
                StoreCalls.call(
                    shard,
                    queue,
                    (StoreCompletion<ListPage> c) ->
                        shard.listHashRange(POOL, pg, cursor, limit, c)));
          }
          ListPage page = HashOrderMerge.merge(pages, limit);
          assertPageMovesOn(page, cursor, ++pageCount);
          page.keys().forEach(k -> got.add(k.name()));
          after = page.next();
        } while (after != null);
        assertEquals(expected(model, pgNum, seed), got, "seed " + seed);
      }
      for (ShardStore shard : shards) {
        shard.close();
      }
    }
  }
}
