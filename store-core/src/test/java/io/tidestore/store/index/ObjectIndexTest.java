package io.tidestore.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import java.util.ArrayList;
import java.util.Arrays;
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
    try (ObjectIndex index = new ObjectIndex()) {
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
  }

  @Test
  void insertingAKeyAgainReplacesItsEntry() {
    try (ObjectIndex index = new ObjectIndex()) {
      ObjectEntry old = existing(index, 1, "k");
      ObjectEntry replacement = index.insert(new ObjectKey(1, "k"), 50);
      assertSame(replacement, index.get(new ObjectKey(1, "k")));
      index.drop(old); // dropping the replaced entry must not remove the new one
      assertSame(replacement, index.get(new ObjectKey(1, "k")));
      assertEquals(index.recountFootprintBytes(), index.footprintBytes());
    }
  }

  @Test
  void listingPagesThroughOnePoolsPrefixSkippingObjectsThatDoNotExist() {
    try (ObjectIndex index = new ObjectIndex()) {
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
  }

  @Test
  void theRunningFootprintMatchesARecountThroughEveryChange() {
    try (ObjectIndex index = new ObjectIndex()) {
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
  }

  @Test
  void blockEntriesPackLocationAndCrcWithZeroAsTheHole() {
    long e = BlockEntry.pack(0, 0);
    assertFalse(BlockEntry.isHole(e), "location 0 with crc 0 is not a hole");
    assertEquals(0, BlockEntry.location(e));
    long max = BlockEntry.pack(-2, -1);
    assertEquals(-2, BlockEntry.location(max));
    assertEquals(-1, BlockEntry.crc(max));
    try (ObjectIndex index = new ObjectIndex()) {
      ObjectEntry o = index.create(new ObjectKey(1, "x"));
      assertEquals(BlockEntry.HOLE, o.block(1L << 40), "far past the block array reads a hole");
      o.setBlock(3, e);
      assertEquals(1, o.allocatedBlocks());
      o.setBlock(3, BlockEntry.HOLE);
      assertEquals(0, o.allocatedBlocks());
    }
  }

  @Test
  void offHeapBlockMapsMatchAHeapModelThroughGrowthTrimsAndDrops() {
    try (ObjectIndex index = new ObjectIndex()) {
      Random random = new Random(7);
      List<ObjectEntry> entries = new ArrayList<>();
      List<long[]> model = new ArrayList<>();
      for (int step = 0; step < 20_000; step++) {
        int what = random.nextInt(10);
        if (entries.isEmpty() || what == 0) {
          entries.add(existing(index, 1, "o" + step));
          model.add(new long[0]);
          continue;
        }
        int i = random.nextInt(entries.size());
        ObjectEntry e = entries.get(i);
        long[] m = model.get(i);
        if (what <= 6) {
          // Mostly small objects, some up to the largest (16,384 blocks, 64 MiB).
          int b = random.nextInt(8) == 0 ? random.nextInt(16_384) : random.nextInt(300);
          long v = random.nextInt(4) == 0 ? BlockEntry.HOLE : BlockEntry.pack(step, b);
          if (b >= m.length) {
            m = Arrays.copyOf(m, b + 1);
            model.set(i, m);
          }
          assertEquals(m[b], e.setBlock(b, v), "the previous entry of block " + b);
          m[b] = v;
        } else if (what <= 8) {
          // A truncate: holes past the cut first (as the record applier does), then the trim.
          int keep = random.nextInt(m.length + 1);
          for (int b = keep; b < e.blockSlots(); b++) {
            e.setBlock(b, BlockEntry.HOLE);
          }
          e.trimBlocks(keep);
          model.set(i, Arrays.copyOf(m, keep));
        } else {
          index.drop(e);
          assertEquals(0, e.blockSlots(), "a dropped entry keeps no block map");
          entries.remove(i);
          model.remove(i);
        }
      }
      for (int i = 0; i < entries.size(); i++) {
        ObjectEntry e = entries.get(i);
        long[] m = model.get(i);
        int allocated = 0;
        for (int b = 0; b < Math.max(m.length, e.blockSlots()); b++) {
          long want = b < m.length ? m[b] : BlockEntry.HOLE;
          assertEquals(want, e.block(b), e.key + " block " + b);
          allocated += BlockEntry.isHole(want) ? 0 : 1;
        }
        assertEquals(allocated, e.allocatedBlocks(), e.key.toString());
      }
      assertTrue(index.nativeBytes() > 0);
      assertEquals(index.recountFootprintBytes(), index.footprintBytes());
    }
  }
}
