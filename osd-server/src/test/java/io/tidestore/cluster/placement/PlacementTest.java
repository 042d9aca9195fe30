package io.tidestore.cluster.placement;

import static io.tidestore.cluster.placement.TestMaps.down;
import static io.tidestore.cluster.placement.TestMaps.map;
import static io.tidestore.cluster.placement.TestMaps.osd;
import static io.tidestore.cluster.placement.TestMaps.out;
import static io.tidestore.cluster.placement.TestMaps.pool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.map.PoolInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static final PoolInfo BY_OSD = pool(1, 3, 2, 256, FailureDomain.OSD);
  private static final PoolInfo BY_HOST = pool(2, 3, 2, 256, FailureDomain.HOST);

  private static List<OsdInfo> osds(int n, int hosts) {
    List<OsdInfo> osds = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      osds.add(osd(i, "h" + (i % hosts), 1.0));
    }
    return osds;
  }

  @Test
  void sizeDistinctOsdsAndOnePerHost() {
    ClusterMap map = map(osds(8, 4), List.of(BY_OSD, BY_HOST));
    for (PgMapping pg : Placement.of(map).all()) {
      assertEquals(3, pg.chosen().size(), pg.toString());
      assertEquals(3, new HashSet<>(pg.chosen()).size(), pg.toString());
      assertEquals(pg.chosen(), pg.up());
      assertEquals(pg.up().get(0), pg.primary());
      if (pg.pg().pool() == BY_HOST.id()) {
        Set<String> hosts = new HashSet<>();
        pg.chosen().forEach(id -> hosts.add(map.osds().get(id).host()));
        assertEquals(3, hosts.size(), "one replica per host: " + pg);
      }
    }
  }

  @Test
  void fewerDomainsThanSizeGiveFewerOsds() {
    ClusterMap map = map(osds(6, 2), List.of(BY_OSD, BY_HOST));
    for (PgMapping pg : Placement.of(map).all()) {
      assertEquals(pg.pg().pool() == BY_HOST.id() ? 2 : 3, pg.chosen().size(), pg.toString());
    }
    ClusterMap empty = map(List.of(), List.of(BY_OSD));
    PgMapping none = Placement.of(empty).pg(new PgId(1, 0));
    assertTrue(none.chosen().isEmpty());
    assertEquals(-1, none.primary());
  }

  @Test
  void outAndZeroWeightOsdsHoldNothingDownOnesLeaveTheUpSet() {
    List<OsdInfo> osds = osds(6, 6);
    osds.set(1, out(osds.get(1)));
    osds.set(2, osd(2, "h2", 0));
    osds.set(3, down(osds.get(3)));
    ClusterMap map = map(osds, List.of(BY_OSD));
    boolean sawDown = false;
    for (PgMapping pg : Placement.of(map).all()) {
      assertFalse(pg.chosen().contains(1), pg.toString());
      assertFalse(pg.chosen().contains(2), pg.toString());
      assertFalse(pg.up().contains(3), pg.toString());
      List<Integer> expectedUp = new ArrayList<>(pg.chosen());
      expectedUp.remove(Integer.valueOf(3));
      assertEquals(expectedUp, pg.up(), "order kept");
      assertEquals(expectedUp.get(0), pg.primary());
      sawDown |= pg.chosen().contains(3);
    }
    assertTrue(sawDown, "a down OSD stays chosen (it is still in)");
  }

  /** A down OSD leaves the up set without moving the others: only the up set shrinks. */
  @Test
  void markingDownMovesNothingElse() {
    List<OsdInfo> osds = osds(5, 5);
    Placement before = Placement.of(map(osds, List.of(BY_OSD)));
    osds.set(0, down(osds.get(0)));
    Placement after = Placement.of(map(osds, List.of(BY_OSD)));
    for (int seed = 0; seed < BY_OSD.pgNum(); seed++) {
      PgMapping a = before.pg(new PgId(1, seed));
      PgMapping b = after.pg(new PgId(1, seed));
      assertEquals(a.chosen(), b.chosen());
    }
  }

  @Test
  void answersAreFixedForever() {
    // Changing the hashes would move every stored object: these values are the contract.
    ClusterMap map = map(osds(6, 3), List.of(BY_OSD, BY_HOST));
    Placement placement = Placement.of(map);
    assertEquals(List.of(3, 1, 4), placement.object(BY_OSD, "foo").chosen());
    assertEquals(List.of(1, 5, 0), placement.object(BY_HOST, "foo").chosen());
  }

  @Test
  void unknownPoolOrSeedIsRefused() {
    Placement placement = Placement.of(map(osds(3, 3), List.of(BY_OSD)));
    assertThrows(NoSuchElementException.class, () -> placement.pg(new PgId(9, 0)));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> placement.pg(new PgId(1, 256)));
    assertTrue(e.getMessage().contains("pg_num 256"), e.getMessage());
  }
}
