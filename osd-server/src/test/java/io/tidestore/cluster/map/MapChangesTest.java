package io.tidestore.cluster.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The map's one change function: ids, epochs, incarnations, pool rules, refusals. */
class MapChangesTest {
  private static final UUID FSID = UUID.fromString("11111111-2222-3333-4444-555555555555");

  static ClusterMap created() {
    return MapChanges.apply(ClusterMap.EMPTY, new MapCommand.Init(FSID, 1000, FailureDomain.OSD))
        .map();
  }

  static MapChanges.Outcome boot(ClusterMap map, int requested, UUID uuid) {
    return MapChanges.apply(
        map,
        new MapCommand.Boot(requested, uuid, "host-a", 1.0, "127.0.0.1:6800", "127.0.0.1:9283", 5));
  }

  @Test
  void initCreatesTheClusterAndPoolRbdOnceOnly() {
    ClusterMap map = created();
    assertEquals(1, map.epoch());
    assertEquals(FSID, map.fsid());
    PoolInfo rbd = map.pool("rbd").orElseThrow();
    assertEquals(3, rbd.size());
    assertEquals(2, rbd.minSize());
    assertEquals(64, rbd.pgNum());
    assertEquals(FailureDomain.OSD, rbd.failureDomain());
    MapChanges.Outcome again =
        MapChanges.apply(map, new MapCommand.Init(UUID.randomUUID(), 2000, FailureDomain.HOST));
    assertSame(map, again.map(), "a second init (a new leader) changes nothing");
  }

  @Test
  void nothingButInitAppliesBeforeTheClusterExists() {
    MapChanges.Outcome outcome =
        MapChanges.apply(ClusterMap.EMPTY, new MapCommand.PoolRemove("rbd"));
    assertNotNull(outcome.error());
    assertSame(ClusterMap.EMPTY, outcome.map());
  }

  @Test
  void bootAllocatesIdsOnceAndGivesAKnownUuidItsIdBack() {
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();
    MapChanges.Outcome a = boot(created(), -1, first);
    assertEquals(0, a.osdId());
    MapChanges.Outcome b = boot(a.map(), -1, second);
    assertEquals(1, b.osdId());
    MapChanges.Outcome again = boot(b.map(), -1, first);
    assertEquals(0, again.osdId(), "the same OSD (uuid) keeps its id");
    assertEquals(2, again.map().nextOsdId());
    OsdInfo osd = again.map().osd(0).orElseThrow();
    assertTrue(osd.up() && osd.in());
    assertEquals(again.map().epoch(), osd.upFrom(), "a boot is a new incarnation");
    assertEquals(b.map().epoch() + 1, again.map().epoch());
  }

  @Test
  void aNamedIdIsTakenOverOnlyFromADownOsd() {
    MapChanges.Outcome a = boot(created(), 7, UUID.randomUUID());
    assertEquals(7, a.osdId());
    assertEquals(8, a.map().nextOsdId(), "allocation continues after a named id");
    UUID wiped = UUID.randomUUID();
    MapChanges.Outcome refused = boot(a.map(), 7, wiped);
    assertNotNull(refused.error(), "osd.7 is up under another uuid");
    assertSame(a.map(), refused.map());
    ClusterMap down = markDown(a.map(), 7);
    MapChanges.Outcome takeover = boot(down, 7, wiped);
    assertNull(takeover.error());
    assertEquals(wiped, takeover.map().osd(7).orElseThrow().uuid());
  }

  @Test
  void aKnownUuidCannotClaimAnotherId() {
    UUID uuid = UUID.randomUUID();
    MapChanges.Outcome a = boot(created(), -1, uuid);
    MapChanges.Outcome other = boot(a.map(), 5, uuid);
    assertNotNull(other.error());
  }

  private static ClusterMap markDown(ClusterMap map, int id) {
    TreeMap<Integer, Long> ids = new TreeMap<>();
    ids.put(id, map.osd(id).orElseThrow().upFrom());
    return MapChanges.apply(map, new MapCommand.MarkDown(ids, 9000)).map();
  }

  @Test
  void markDownSparesANewerIncarnationAndMarkOutOnlyTakesDownOsds() {
    UUID uuid = UUID.randomUUID();
    ClusterMap up = boot(created(), -1, uuid).map();
    long oldUpFrom = up.osd(0).orElseThrow().upFrom();
    ClusterMap rebooted = boot(up, -1, uuid).map();
    TreeMap<Integer, Long> stale = new TreeMap<>();
    stale.put(0, oldUpFrom);
    MapChanges.Outcome noop = MapChanges.apply(rebooted, new MapCommand.MarkDown(stale, 9000));
    assertSame(rebooted, noop.map(), "the detector saw the old incarnation; the new one stays up");

    TreeMap<Integer, Long> current = new TreeMap<>();
    current.put(0, rebooted.osd(0).orElseThrow().upFrom());
    assertSame(
        rebooted,
        MapChanges.apply(rebooted, new MapCommand.MarkOut(current)).map(),
        "an up OSD is never marked out");
    ClusterMap down = MapChanges.apply(rebooted, new MapCommand.MarkDown(current, 9000)).map();
    OsdInfo osd = down.osd(0).orElseThrow();
    assertFalse(osd.up());
    assertTrue(osd.in());
    assertEquals(9000, osd.stateSinceMillis(), "the down-out timer starts at the mark-down");
    ClusterMap out = MapChanges.apply(down, new MapCommand.MarkOut(current)).map();
    assertFalse(out.osd(0).orElseThrow().in());
    assertEquals(down.epoch() + 1, out.epoch());
    ClusterMap back = boot(out, -1, uuid).map();
    assertTrue(back.osd(0).orElseThrow().up() && back.osd(0).orElseThrow().in());
  }

  @Test
  void poolsAreValidatedNumberedOnceAndRemoved() {
    ClusterMap map = created();
    for (MapCommand.PoolCreate bad :
        new MapCommand.PoolCreate[] {
          new MapCommand.PoolCreate("rbd", 3, 2, 8, null),
          new MapCommand.PoolCreate("bad name", 3, 2, 8, null),
          new MapCommand.PoolCreate("p", 0, 1, 8, null),
          new MapCommand.PoolCreate("p", 2, 3, 8, null),
          new MapCommand.PoolCreate("p", 3, 2, 0, null),
          new MapCommand.PoolCreate("p", 3, 2, PoolInfo.MAX_PG_NUM + 1, null)
        }) {
      MapChanges.Outcome refused = MapChanges.apply(map, bad);
      assertNotNull(refused.error(), bad.toString());
      assertSame(map, refused.map());
    }
    ClusterMap withP = MapChanges.apply(map, new MapCommand.PoolCreate("p", 2, 1, 16, null)).map();
    PoolInfo p = withP.pool("p").orElseThrow();
    assertEquals(2, p.id());
    assertEquals(FailureDomain.OSD, p.failureDomain(), "the cluster's default");
    ClusterMap without = MapChanges.apply(withP, new MapCommand.PoolRemove("p")).map();
    assertTrue(without.pool("p").isEmpty());
    ClusterMap again =
        MapChanges.apply(without, new MapCommand.PoolCreate("p", 2, 1, 16, FailureDomain.HOST))
            .map();
    assertEquals(3, again.pool("p").orElseThrow().id(), "pool ids are never reused");
    assertEquals(FailureDomain.HOST, again.pool("p").orElseThrow().failureDomain());
    assertNotNull(MapChanges.apply(again, new MapCommand.PoolRemove("nope")).error());
  }
}
