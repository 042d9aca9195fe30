package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.placement.TestMaps;
import io.tidestore.cluster.wire.FailureMessages.OsdFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The report rule on a clock of the test's own: distinct up reporters about the current
 * incarnation, as many as {@code --mon-osd-min-down-reporters} allows with the OSDs in, whose
 * earliest failure began the grace ago; reports that expire, are taken back, or come from or about
 * an incarnation that is gone do not count.
 */
class FailureReportsTest {
  private static final long S = 1_000_000_000L;
  private static final Duration GRACE = Duration.ofSeconds(6);

  private static ClusterMap map(int osds) {
    return map(osds, -1, null);
  }

  /** {@code osds} OSDs up from 1, osd.{@code changed} replaced by {@code how} of it. */
  private static ClusterMap map(int osds, int changed, UnaryOperator<OsdInfo> how) {
    List<OsdInfo> all = new ArrayList<>();
    for (int i = 0; i < osds; i++) {
      OsdInfo osd = TestMaps.osd(i, "h" + i, 1);
      all.add(i == changed ? how.apply(osd) : osd);
    }
    return TestMaps.map(all, List.of());
  }

  /** osd.{@code reporter} (up from 1) says osd.{@code target} (up from 1) failed {@code ms} ago. */
  private static OsdFailure failed(int reporter, int target, long ms) {
    return new OsdFailure(reporter, 1, target, 1, ms, false);
  }

  /** Reports (min 2 reporters) of osd.1 and osd.2, received at 0, that osd.0 failed so long ago. */
  private static FailureReports reportedByOsds1And2(long ms1, long ms2) {
    FailureReports reports = new FailureReports(GRACE, 2);
    reports.record(failed(1, 0, ms1), 0);
    reports.record(failed(2, 0, ms2), 0);
    return reports;
  }

  @Test
  void twoReportersOfAFailureOlderThanTheGraceMarkItDown() {
    FailureReports reports = new FailureReports(GRACE, 2);
    ClusterMap map = map(4);
    reports.record(failed(1, 0, 6_000), 0);
    assertTrue(reports.due(map, 0).isEmpty(), "one reporter of two");
    reports.record(failed(2, 0, 6_500), S);
    var due = reports.due(map, S);
    assertEquals(List.of(0), List.copyOf(due.keySet()));
    assertEquals(new FailureReports.Due(0, 1, List.of(1, 2)), due.get(0));
    // The same reporter twice is one reporter.
    FailureReports once = new FailureReports(GRACE, 2);
    once.record(failed(1, 0, 6_000), 0);
    once.record(failed(1, 0, 7_000), S);
    assertTrue(once.due(map, S).isEmpty());
  }

  @Test
  void aFailureYoungerThanTheGraceWaitsForIt() {
    ClusterMap map = map(3);
    FailureReports reports = reportedByOsds1And2(1_000, 2_000);
    // The earliest failure began 2 s before 0: due at 4 s, not before.
    assertTrue(reports.due(map, 4 * S - 1).isEmpty());
    assertEquals(List.of(0), List.copyOf(reports.due(map, 4 * S).keySet()));
  }

  @Test
  void fewerOsdsThanReportersPlusOneNeedWhatIsPossible() {
    FailureReports two = new FailureReports(GRACE, 2);
    assertEquals(1, two.required(1));
    assertEquals(1, two.required(2));
    assertEquals(2, two.required(3));
    assertEquals(2, two.required(1000));
    FailureReports three = new FailureReports(GRACE, 3);
    assertEquals(2, three.required(3));
    assertEquals(3, three.required(4));
    // A cluster of two: the other OSD's word is enough.
    two.record(failed(1, 0, 6_000), 0);
    assertEquals(List.of(0), List.copyOf(two.due(map(2), 0).keySet()));
    // Three OSDs, one down but still in: the cluster has 3, so 2 reporters, as when all are up.
    ClusterMap oneDown = map(3, 2, TestMaps::down);
    FailureReports r = new FailureReports(GRACE, 2);
    r.record(failed(1, 0, 6_000), 0);
    assertTrue(r.due(oneDown, 0).isEmpty(), "a lone reporter while osd.2 is down");
    // Down and out: a cluster of 2 now, so 1 reporter.
    ClusterMap oneOut = map(3, 2, o -> TestMaps.out(TestMaps.down(o)));
    assertEquals(List.of(0), List.copyOf(r.due(oneOut, 0).keySet()));
  }

  @Test
  void reportsFromDownOrRestartedReportersAndAboutOldIncarnationsDoNotCount() {
    ClusterMap map = map(4, 3, TestMaps::down);
    FailureReports reports = new FailureReports(GRACE, 2);
    reports.record(failed(1, 0, 6_000), 0);
    reports.record(failed(3, 0, 6_000), 0); // osd.3 is down
    reports.record(new OsdFailure(2, 0, 0, 1, 6_000, false), 0); // osd.2 since restarted
    assertTrue(reports.due(map, 0).isEmpty());
    // osd.0 restarted (up from 5): reports about incarnation 1 say nothing of it.
    ClusterMap restarted = map(4, 0, o -> TestMaps.restarted(o, 5));
    FailureReports old = new FailureReports(GRACE, 2);
    old.record(failed(1, 0, 6_000), 0);
    old.record(failed(2, 0, 6_000), 0);
    assertTrue(old.due(restarted, 0).isEmpty());
    assertTrue(old.due(map(4), 0).isEmpty(), "dropped, not kept for later");
  }

  @Test
  void anAliveReportTakesTheReportersReportBack() {
    ClusterMap map = map(3);
    FailureReports reports = reportedByOsds1And2(6_000, 6_000);
    reports.record(OsdFailure.alive(2, 1, 0, 1), S);
    assertTrue(reports.due(map, S).isEmpty());
    assertEquals(2, reports.failedReceived());
    assertEquals(1, reports.aliveReceived());
  }

  @Test
  void reportsNotRenewedWithinTwiceTheGraceExpire() {
    ClusterMap map = map(3);
    FailureReports reports = reportedByOsds1And2(6_000, 6_000);
    assertEquals(1, reports.due(map, 12 * S).size(), "still within twice the grace");
    assertTrue(reports.due(map, 12 * S + 1).isEmpty());
    // Renewed, a report counts again from its renewal.
    reports.record(failed(1, 0, 20_000), 14 * S);
    reports.record(failed(2, 0, 20_000), 14 * S);
    assertEquals(1, reports.due(map, 14 * S).size());
  }
}
