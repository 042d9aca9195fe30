package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat rule on a clock of the test's own (1 s ticks, 6 s grace): one ping at a time per
 * peer, a miss per tick it stays unanswered, an overdue ping's link replaced, a peer silent past
 * the grace reported (and renewed) until it answers, then reported alive once; a new peer or
 * incarnation gets a whole grace; a late tick (this OSD paused) reports nothing.
 */
class PeerHealthTest {
  private static final long S = 1_000_000_000L;
  private static final Duration GRACE = Duration.ofSeconds(6);

  private final PeerHealth health = new PeerHealth(Duration.ofSeconds(1));

  @Test
  void aPeerThatAnswersIsPingedEveryTickAndNeverReported() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    for (int t = 1; t <= 20; t++) {
      PeerHealth.Tick tick = health.tick(t * S, GRACE);
      assertEquals(List.of(1), tick.ping());
      assertEquals(0, tick.misses());
      assertTrue(tick.reports().isEmpty());
      assertNull(health.replied(1, 5, t * S, t * S + 1_000_000, GRACE));
    }
    assertEquals(1, health.size());
    assertEquals(0, health.reported());
  }

  @Test
  void aSilentPeerIsReportedAfterTheGraceUntilItAnswers() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    health.tick(S, GRACE); // ping sent at 1 s
    health.replied(1, 5, S, S + 1, GRACE); // alive as of 1 s
    health.tick(2 * S, GRACE); // ping sent at 2 s: never answered
    for (int t = 3; t <= 7; t++) {
      PeerHealth.Tick tick = health.tick(t * S, GRACE);
      assertEquals(1, tick.misses(), "tick " + t);
      assertTrue(tick.ping().isEmpty(), "one ping at a time");
      assertTrue(tick.reports().isEmpty(), "tick " + t + ": within the grace of 1 s");
    }
    PeerHealth.Tick failed = health.tick(8 * S, GRACE);
    assertEquals(List.of(new PeerHealth.Report(1, 5, 7_000, false)), failed.reports());
    assertEquals(List.of(1), failed.newlyFailed());
    assertTrue(failed.overdue().isEmpty(), "the ping of 2 s is as old as the grace, not older");
    assertEquals(1, health.reported());
    PeerHealth.Tick renewed = health.tick(9 * S, GRACE);
    assertEquals(List.of(new PeerHealth.Report(1, 5, 8_000, false)), renewed.reports());
    assertTrue(renewed.newlyFailed().isEmpty());
    assertEquals(List.of(1), renewed.overdue(), "the ping of 2 s is older than the grace");
    assertEquals(List.of(1), renewed.ping(), "pinged again, on a new link");
    // It answers the ping of 9 s: alive, reported once.
    assertEquals(
        new PeerHealth.Report(1, 5, 0, true), health.replied(1, 5, 9 * S, 9 * S + 5, GRACE));
    assertNull(health.replied(1, 5, 2 * S, 9 * S + 6, GRACE), "the old ping's answer, late");
    assertTrue(health.tick(10 * S, GRACE).reports().isEmpty());
    assertEquals(0, health.reported());
  }

  @Test
  void aFailedPingCountsAMissAndIsSentAgainAtTheNextTick() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    health.tick(S, GRACE);
    health.pingFailed(1, 5, S); // connection refused
    PeerHealth.Tick tick = health.tick(2 * S, GRACE);
    assertEquals(1, tick.misses());
    assertEquals(List.of(1), tick.ping());
    assertTrue(tick.overdue().isEmpty());
  }

  @Test
  void nothingIsReportedBeforeTheMonitorsSaidTheGrace() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    for (int t = 1; t <= 30; t++) {
      assertTrue(health.tick(t * S, null).reports().isEmpty());
    }
  }

  @Test
  void aNewPeerOrIncarnationGetsAWholeGrace() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    for (int t = 1; t <= 6; t++) {
      assertTrue(health.tick(t * S, GRACE).reports().isEmpty(), "tick " + t);
    }
    // Restarted (up from 9) at 6.5 s: its grace starts again.
    health.setPeers(List.of(new PeerHealth.Peer(1, 9)), 6 * S + S / 2);
    for (int t = 7; t <= 12; t++) {
      assertTrue(health.tick(t * S, GRACE).reports().isEmpty(), "tick " + t);
    }
    assertEquals(
        List.of(new PeerHealth.Report(1, 9, 6_500, false)), health.tick(13 * S, GRACE).reports());
    // An answer to a ping of the old incarnation changes nothing.
    assertNull(health.replied(1, 5, 12 * S, 13 * S, GRACE));
    assertEquals(1, health.reported());
  }

  @Test
  void aPeerThatLeavesWhileReportedIsReportedAlive() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5), new PeerHealth.Peer(2, 5)), 0);
    for (int t = 1; t <= 7; t++) {
      health.tick(t * S, GRACE);
    }
    assertEquals(2, health.reported());
    assertEquals(
        List.of(new PeerHealth.Report(2, 5, 0, true)),
        health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 8 * S));
    assertEquals(1, health.size());
  }

  @Test
  void aLateTickAfterAPauseOfThisOsdReportsNothing() {
    health.setPeers(List.of(new PeerHealth.Peer(1, 5)), 0);
    health.tick(S, GRACE);
    health.replied(1, 5, S, S + 1, GRACE);
    // This OSD was stopped from 1 s to 30 s: its next tick is late.
    PeerHealth.Tick late = health.tick(30 * S, GRACE);
    assertTrue(late.reports().isEmpty());
    assertEquals(0, late.misses());
    for (int t = 31; t <= 36; t++) {
      assertTrue(health.tick(t * S, GRACE).reports().isEmpty(), "tick " + t);
    }
    assertEquals(1, health.tick(37 * S, GRACE).reports().size(), "silent since 30 s");
  }
}
