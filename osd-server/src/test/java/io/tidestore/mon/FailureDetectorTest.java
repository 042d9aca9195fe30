package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.placement.TestMaps;
import io.tidestore.cluster.wire.FailureMessages.OsdFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Both of the leader's rules in the detector, on a clock of the test's own: an OSD whose heartbeats
 * stop is marked down without any report; one that keeps heartbeating the monitor is marked down
 * once its peers' reports say so; one reporter of three OSDs is not enough.
 */
class FailureDetectorTest {
  private static final long S = 1_000_000_000L;
  private static final Duration GRACE = Duration.ofSeconds(6);

  private final AtomicLong clock = new AtomicLong(1_000 * S);
  private final List<MapCommand> proposed = new ArrayList<>();
  private final ClusterMap map = threeOsds();
  private final FailureDetector detector =
      new FailureDetector(
          GRACE,
          Duration.ofMinutes(10),
          FailureDomain.OSD,
          () -> map,
          () -> true,
          proposed::add,
          new FailureReports(GRACE, 2),
          clock::get);

  private static ClusterMap threeOsds() {
    List<OsdInfo> osds = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      osds.add(TestMaps.osd(i, "h" + i, 1));
    }
    return TestMaps.map(osds, List.of());
  }

  /** One second: every OSD in {@code beating} heartbeats, then the leader ticks. */
  private void second(int... beating) {
    clock.addAndGet(S);
    for (int osd : beating) {
      detector.heartbeat(osd, 1);
    }
    detector.tick();
  }

  private List<Integer> markedDown() {
    List<Integer> ids = new ArrayList<>();
    for (MapCommand c : proposed) {
      if (c instanceof MapCommand.MarkDown down) {
        ids.addAll(down.upFromById().keySet());
      }
    }
    return ids;
  }

  @Test
  void anOsdWithoutHeartbeatsIsMarkedDownWithoutReports() {
    detector.onMap(map);
    for (int s = 0; s < 6; s++) {
      second(0, 1, 2);
    }
    second(1, 2);
    assertTrue(proposed.isEmpty());
    for (int s = 0; s < 6; s++) {
      second(1, 2);
    }
    assertEquals(List.of(0), markedDown());
    assertEquals(1L, ((MapCommand.MarkDown) proposed.get(0)).upFromById().get(0));
  }

  @Test
  void peersReportsMarkDownAnOsdThatStillHeartbeatsTheMonitor() {
    detector.onMap(map);
    second(0, 1, 2);
    detector.failureReport(new OsdFailure(1, 1, 0, 1, 6_100, false));
    second(0, 1, 2);
    assertTrue(proposed.isEmpty(), "one reporter of the two needed");
    detector.failureReport(new OsdFailure(2, 1, 0, 1, 6_200, false));
    second(0, 1, 2);
    assertEquals(List.of(0), markedDown());
  }

  @Test
  void oneReporterOfThreeOsdsIsNotEnough() {
    detector.onMap(map);
    for (int s = 0; s < 20; s++) {
      detector.failureReport(new OsdFailure(1, 1, 0, 1, 6_000 + s * 1_000L, false));
      second(0, 1, 2);
    }
    assertTrue(proposed.isEmpty());
  }
}
