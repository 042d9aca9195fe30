package io.tidestore.cluster.pgstats;

import static io.tidestore.cluster.placement.TestMaps.down;
import static io.tidestore.cluster.placement.TestMaps.map;
import static io.tidestore.cluster.placement.TestMaps.osd;
import static io.tidestore.cluster.placement.TestMaps.pool;
import static io.tidestore.cluster.placement.TestMaps.restarted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.wire.MonMessages;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PgStatesTest {
  private static final PoolInfo POOL = pool(1, 3, 2, 16, FailureDomain.OSD);
  private static final long SECOND = 1_000_000_000L;

  private static List<OsdInfo> osds() {
    List<OsdInfo> osds = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      osds.add(osd(i, "h", 1.0));
    }
    return osds;
  }

  /** What each OSD of {@code map} would report as primary: {@code state} for all its PGs. */
  private static void reportAll(PgStates states, ClusterMap map, String state, long now) {
    for (OsdInfo osd : map.osds().values()) {
      if (osd.up()) {
        states.record(osd.id(), osd.upFrom(), report(map, osd.id(), state, 0, 0), now);
      }
    }
  }

  private static PgReport report(ClusterMap map, int osd, String state, long objects, long bytes) {
    List<PgStat> pgs = new ArrayList<>();
    for (PgMapping m : Placement.of(map).all()) {
      if (m.actingPrimary() == osd) {
        pgs.add(new PgStat(m.pg(), state, PgInterval.key(map, m), new Eversion(3, 7)));
      }
    }
    return new PgReport(map.epoch(), objects, bytes, pgs);
  }

  @Test
  void reportedStatesOfTheCurrentIntervalAreTaken() {
    ClusterMap map = map(osds(), List.of(POOL));
    PgStates states = new PgStates();
    assertEquals(Map.of("unknown", 16L), states.summarize(map, 0).byState(), "nothing reported");
    reportAll(states, map, PgStates.ACTIVE_CLEAN, 0);
    PgSummary summary = states.summarize(map, SECOND);
    assertEquals(Map.of(PgStates.ACTIVE_CLEAN, 16L), summary.byState());
    assertTrue(summary.allClean());
    assertEquals(0, summary.inactive());
    assertEquals(new Eversion(3, 7), summary.pgs().get(0).head());
  }

  @Test
  void aReportOfAnEarlierIntervalIsPeeringAndAnOldIncarnationIsUnknown() {
    List<OsdInfo> osds = osds();
    ClusterMap before = map(osds, List.of(POOL));
    PgStates states = new PgStates();
    reportAll(states, before, PgStates.ACTIVE_CLEAN, 0);
    // osd.2 restarts: a new incarnation; every PG it is in starts a new interval.
    osds.set(2, restarted(osds.get(2), 5));
    ClusterMap after = map(osds, List.of(POOL));
    PgSummary summary = states.summarize(after, SECOND);
    for (PgSummary.Pg pg : summary.pgs()) {
      String expected = pg.primary() == 2 ? "unknown" : "peering";
      assertEquals(expected, pg.state(), pg.toString());
    }
    assertEquals(16, summary.inactive());
    // A late heartbeat of osd.2's earlier incarnation changes nothing.
    states.record(2, 1, report(before, 2, PgStates.ACTIVE_CLEAN, 0, 0), SECOND);
    reportAll(states, after, PgStates.ACTIVE_CLEAN, 2 * SECOND);
    states.record(2, 1, report(before, 2, "peering", 0, 0), 2 * SECOND);
    assertTrue(states.summarize(after, 2 * SECOND).allClean());
  }

  @Test
  void theMapDecidesDownAndUndersizedAndOldReportsAreStale() {
    List<OsdInfo> osds = osds();
    PgStates states = new PgStates();
    reportAll(states, map(osds, List.of(POOL)), PgStates.ACTIVE_CLEAN, 0);
    assertEquals(
        Map.of("stale+active+clean", 16L),
        states.summarize(map(osds, List.of(POOL)), 11 * SECOND).byState());
    osds.set(0, down(osds.get(0)));
    osds.set(1, down(osds.get(1)));
    PgSummary twoDown = states.summarize(map(osds, List.of(POOL)), SECOND);
    assertEquals(Map.of("undersized+degraded+peered", 16L), twoDown.byState());
    assertEquals(16, twoDown.degraded());
    osds.set(2, down(osds.get(2)));
    assertEquals(Map.of("down", 16L), states.summarize(map(osds, List.of(POOL)), SECOND).byState());
  }

  @Test
  void recoveryRatesComeFromTheTotalsOfSuccessiveReports() {
    ClusterMap map = map(osds(), List.of(POOL));
    PgStates states = new PgStates();
    for (int s = 0; s <= 4; s++) {
      states.record(
          0, 1, report(map, 0, "recovering+degraded", 10L * s, 1_000_000L * s), s * SECOND);
      states.record(1, 1, report(map, 1, PgStates.ACTIVE_CLEAN, 0, 0), s * SECOND);
    }
    PgSummary summary = states.summarize(map, 4 * SECOND);
    assertEquals(10.0, summary.recoveringObjectsPerSec(), 1e-9);
    assertEquals(1_000_000.0, summary.recoveringBytesPerSec(), 1e-6);
    assertEquals(
        0.0, states.summarize(map, 20 * SECOND).recoveringBytesPerSec(), "stale reports: no rate");
    long recovering = summary.withWord("recovering");
    assertTrue(recovering > 0 && recovering < 16, "osd.0's PGs only: " + recovering);
    assertFalse(summary.allClean());
  }

  @Test
  void reportsAndSummariesSurviveTheWire() throws IOException {
    ClusterMap map = map(osds(), List.of(POOL));
    PgReport sent = report(map, 1, PgStates.ACTIVE_CLEAN, 3, 4096);
    MonMessages.Heartbeat hb =
        MonMessages.heartbeat(MonMessages.heartbeat(new MonMessages.Heartbeat(1, 9, sent)));
    assertEquals(new MonMessages.Heartbeat(1, 9, sent), hb);
    // A heartbeat from before PG reports (just id and incarnation) reports nothing.
    byte[] old = new byte[12];
    old[3] = 1;
    old[11] = 9;
    assertEquals(new MonMessages.Heartbeat(1, 9, PgReport.NONE), MonMessages.heartbeat(old));
    PgStates states = new PgStates();
    reportAll(states, map, PgStates.ACTIVE_CLEAN, 0);
    PgSummary summary = states.summarize(map, 0);
    assertEquals(summary, MonMessages.pgSummary(MonMessages.pgSummary(summary)));
  }
}
