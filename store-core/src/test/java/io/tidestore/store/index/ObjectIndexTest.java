package io.tidestore.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The object index: lookups by key and id, ids, listing pages, and its footprint accounting. */
class ObjectIndexTest {
  private static ObjectEntry existing(ObjectIndex index, long pool, String name) {
    ObjectEntry e = index.create(new ObjectKey(pool, name));
    e.exists = true;
    return e;
  }

  @Test
  void entriesAreFoundByKeyAndIdAndIdsAreNeverReused() {
    ObjectIndex index = new ObjectIndex();
    ObjectEntry a = existing(index, 1, "a");
    ObjectEntry b = existing(index, 1, "b");
    assertNotEquals(a.id, b.id);
    assertSame(a, index.get(new ObjectKey(1, "a")));
    assertSame(b, index.byId(b.id));
    assertNull(index.get(new ObjectKey(2, "a")), "pools are separate namespaces");
    index.drop(a);
    assertNull(index.get(new ObjectKey(1, "a")));
    assertNull(index.byId(a.id));
    ObjectEntry again = existing(index, 1, "a");
    assertTrue(again.id > b.id, "a dropped object's id was handed out again");
    // Replay inserts known ids; later creates go past them.
    index.insert(new ObjectKey(1, "replayed"), 1000);
    assertEquals(1001, index.create(new ObjectKey(1, "next")).id);
  }

  @Test
  void insertingAKeyAgainReplacesItsEntry() {
    ObjectIndex index = new ObjectIndex();
    ObjectEntry old = existing(index, 1, "k");
    ObjectEntry replacement = index.insert(new ObjectKey(1, "k"), 50);
    assertSame(replacement, index.get(new ObjectKey(1, "k")));
    index.drop(old); // dropping the replaced entry must not remove the new one
    assertSame(replacement, index.get(new ObjectKey(1, "k")));
    assertEquals(index.recountFootprintBytes(), index.footprintBytes());
  }

  @Test
  void listingPagesThroughOnePoolsPrefixSkippingObjectsThatDoNotExist() {
    ObjectIndex index = new ObjectIndex();
    for (int i = 0; i < 10; i++) {
      existing(index, 1, String.format("rbd_data.v.%02d", i));
    }
    existing(index, 1, "rbd_data.w.00");
    existing(index, 2, "rbd_data.v.99");
    index.create(new ObjectKey(1, "rbd_data.v.05a")); // staged only: not listed
    List<String> all = new ArrayList<>();
    ObjectKey after = null;
    while (true) {
      List<ObjectKey> page = index.list(1, "rbd_data.v.", after, 3);
      boolean more = page.size() > 3;
      List<ObjectKey> shown = more ? page.subList(0, 3) : page;
      shown.forEach(k -> all.add(k.name()));
      if (!more) {
        break;
      }
      after = shown.get(2);
    }
    List<String> want = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      want.add(String.format("rbd_data.v.%02d", i));
    }
    assertEquals(want, all);
    assertEquals(11, index.list(1, "", null, 100).size(), "an empty prefix lists the pool");
    assertTrue(index.list(3, "", null, 10).isEmpty());
  }

  @Test
  void theRunningFootprintMatchesARecountThroughEveryChange() {
    ObjectIndex index = new ObjectIndex();
    Random random = new Random(42);
    List<ObjectEntry> entries = new ArrayList<>();
    for (int step = 0; step < 2000; step++) {
      int what = random.nextInt(6);
      if (entries.isEmpty() || what == 0) {
        entries.add(existing(index, 1, "o" + step));
      } else {
        ObjectEntry e = entries.get(random.nextInt(entries.size()));
        switch (what) {
          case 1 -> e.setBlock(random.nextInt(5000), BlockEntry.pack(step, step));
          case 2 -> e.trimBlocks(random.nextInt(10));
          case 3 -> e.setXattr("x" + random.nextInt(3), new byte[random.nextInt(100)]);
          case 4 -> e.removeXattr("x" + random.nextInt(3));
          default -> {
            index.drop(e);
            entries.remove(e);
          }
        }
      }
      assertEquals(index.recountFootprintBytes(), index.footprintBytes(), "step " + step);
    }
    assertFalse(entries.isEmpty());
  }

  @Test
  void blockEntriesPackLocationAndCrcWithZeroAsTheHole() {
    long e = BlockEntry.pack(0, 0);
    assertFalse(BlockEntry.isHole(e), "location 0 with crc 0 is not a hole");
    assertEquals(0, BlockEntry.location(e));
    long max = BlockEntry.pack(-2, -1);
    assertEquals(-2, BlockEntry.location(max));
    assertEquals(-1, BlockEntry.crc(max));
    ObjectEntry o = new ObjectIndex().create(new ObjectKey(1, "x"));
    assertEquals(BlockEntry.HOLE, o.block(1L << 40), "far past the block array reads a hole");
    o.setBlock(3, e);
    assertEquals(1, o.allocatedBlocks());
    o.setBlock(3, BlockEntry.HOLE);
    assertEquals(0, o.allocatedBlocks());
  }
}
