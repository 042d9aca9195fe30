package io.tidestore.cluster.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Heartbeat peers: the OSDs an OSD shares a PG's acting set with, and the next and previous up OSD
 * by id, around the end; never itself, never a down OSD; none for an OSD that is down.
 */
class HeartbeatPeersTest {
  private static ClusterMap map(int osds, int downOsd, int pgNum) {
    List<OsdInfo> all = new ArrayList<>();
    for (int i = 0; i < osds; i++) {
      OsdInfo osd = TestMaps.osd(i, "h" + i, 1);
      all.add(i == downOsd ? TestMaps.down(osd) : osd);
    }
    return TestMaps.map(all, List.of(TestMaps.pool(1, 3, 2, pgNum, FailureDomain.OSD)));
  }

  private static SortedSet<Integer> peers(ClusterMap map, int self) {
    return HeartbeatPeers.of(map, Placement.of(map).all(), self);
  }

  @Test
  void membersOfThePgsItSharesAndBothNeighbours() {
    ClusterMap map = map(8, -1, 1);
    List<Integer> members = Placement.of(map).all().get(0).acting();
    assertEquals(3, members.size());
    for (int self = 0; self < 8; self++) {
      SortedSet<Integer> expected = new TreeSet<>();
      if (members.contains(self)) {
        expected.addAll(members);
      }
      expected.add((self + 1) % 8);
      expected.add((self + 7) % 8);
      expected.remove(self);
      assertEquals(expected, peers(map, self), "osd." + self + " of PG members " + members);
    }
  }

  @Test
  void downOsdsAreNeitherPeersNorNeighboursAndADownOsdHasNoPeers() {
    ClusterMap map = map(5, 3, 16);
    for (int self = 0; self < 5; self++) {
      SortedSet<Integer> peers = peers(map, self);
      if (self == 3) {
        assertTrue(peers.isEmpty(), "a down OSD pings no one: " + peers);
        continue;
      }
      assertTrue(!peers.contains(3) && !peers.contains(self), "osd." + self + ": " + peers);
    }
    // Neighbours skip the down osd.3: osd.2's next up OSD is osd.4, osd.4's is osd.0.
    assertTrue(peers(map, 2).contains(4));
    assertTrue(peers(map, 4).containsAll(Set.of(0, 2)));
  }

  @Test
  void twoOsdsArePeersOfEachOtherAndALoneOsdHasNone() {
    ClusterMap two = map(2, -1, 4);
    assertEquals(Set.of(1), peers(two, 0));
    assertEquals(Set.of(0), peers(two, 1));
    assertTrue(peers(map(1, -1, 4), 0).isEmpty());
  }

  @Test
  void everyPgMemberIsAPeerWithManyPgs() {
    ClusterMap map = map(12, -1, 64);
    List<PgMapping> pgs = Placement.of(map).all();
    for (int self = 0; self < 12; self++) {
      SortedSet<Integer> peers = HeartbeatPeers.of(map, pgs, self);
      for (PgMapping pg : pgs) {
        if (pg.acting().contains(self)) {
          for (int member : pg.acting()) {
            assertTrue(member == self || peers.contains(member), pg + " of osd." + self);
          }
        }
      }
    }
  }
}
