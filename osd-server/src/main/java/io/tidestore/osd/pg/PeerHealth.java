package io.tidestore.osd.pg;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an OSD knows of its heartbeat peers (Ceph's {@code HeartbeatInfo}), and what it should do
 * about them at each tick: which to ping, which pings are overdue, which peers to report failed to
 * the monitors, and, as answers come, which to report alive again.
 *
 * <ul>
 *   <li>A peer counts as alive as of the <em>sending</em> time of the newest ping it answered (Ceph
 *       fails a peer whose oldest unanswered ping is older than the grace), and from the moment it
 *       became a peer, so a new peer, or a new incarnation of one, has a whole grace to answer.
 *   <li>One ping at a time per peer: a tick finding it still unanswered counts a miss, and once it
 *       is older than the grace it is overdue (its link is dropped and a new ping sent on a new
 *       one: the peer may have moved, or the connection be dead).
 *   <li>A peer silent for longer than the grace is reported failed, again at every tick while it
 *       stays silent (reports expire at the monitors unless renewed); an answer after that reports
 *       it alive, once. Nothing is reported while the grace is unknown (no monitor said it yet).
 *   <li>A tick that comes late, more than two intervals after the one before, finds this OSD itself
 *       stopped or starved (SIGSTOP, a long pause): its peers' silence meanwhile says nothing about
 *       them, so each peer's grace starts again and the tick reports nothing.
 * </ul>
 *
 * <p>Not thread-safe: {@link PeerHeartbeats} calls it on its one thread. Times are {@link
 * System#nanoTime} values passed in, so the rule is tested on a clock of the test's own.
 */
final class PeerHealth {
  /** Before a monitor said the grace: how long a ping may stay unanswered (the default grace). */
  static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(6);

  /** A heartbeat peer as the map has it: its incarnation. */
  record Peer(int osd, long upFrom) {}

  /** A report to make: {@code osd} in incarnation {@code upFrom} failed for so long, or alive. */
  record Report(int osd, long upFrom, long failedForMillis, boolean alive) {}

  /**
   * What one tick decided.
   *
   * @param ping the peers to ping now (each now has a ping out, sent at the tick's time)
   * @param overdue the peers whose ping went unanswered for the grace: drop their links first
   * @param misses the peers whose ping was still unanswered (or failed) at this tick
   * @param reports the failed reports to send (renewals included)
   * @param newlyFailed the peers reported failed for the first time since they last answered
   */
  record Tick(
      List<Integer> ping,
      List<Integer> overdue,
      int misses,
      List<Report> reports,
      List<Integer> newlyFailed) {}

  private static final class State {
    final long upFrom;
    long aliveAt;
    boolean pinging;
    long sentAt;
    boolean missed;
    boolean reported;

    State(long upFrom, long now) {
      this.upFrom = upFrom;
      this.aliveAt = now;
    }
  }

  private final long intervalNanos;
  private final Map<Integer, State> peers = new TreeMap<>();
  private long lastTick = Long.MIN_VALUE;

  /**
   * @param interval how often {@link #tick} runs
   */
  PeerHealth(Duration interval) {
    this.intervalNanos = interval.toNanos();
  }

  /**
   * The peers of a new map: new ones (and new incarnations) start their grace now, those gone are
   * forgotten. Returns the alive reports to send for peers that leave while reported failed (they
   * left the PGs this OSD shares: its report would otherwise stand until it expires).
   */
  List<Report> setPeers(List<Peer> next, long now) {
    Map<Integer, Long> wanted = new TreeMap<>();
    next.forEach(p -> wanted.put(p.osd(), p.upFrom()));
    List<Report> alive = new ArrayList<>();
    for (Iterator<Map.Entry<Integer, State>> it = peers.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Integer, State> e = it.next();
      Long upFrom = wanted.get(e.getKey());
      if (upFrom == null || upFrom != e.getValue().upFrom) {
        if (upFrom == null && e.getValue().reported) {
          alive.add(new Report(e.getKey(), e.getValue().upFrom, 0, true));
        }
        it.remove();
      }
    }
    wanted.forEach((osd, upFrom) -> peers.computeIfAbsent(osd, o -> new State(upFrom, now)));
    return alive;
  }

  /** What to do at {@code now}; {@code grace} is the monitors', or null while unknown. */
  Tick tick(long now, Duration grace) {
    boolean late = lastTick != Long.MIN_VALUE && now - lastTick > 2 * intervalNanos;
    lastTick = now;
    long timeout = (grace != null ? grace : DEFAULT_PING_TIMEOUT).toNanos();
    List<Integer> ping = new ArrayList<>();
    List<Integer> overdue = new ArrayList<>();
    List<Report> reports = new ArrayList<>();
    List<Integer> newlyFailed = new ArrayList<>();
    int misses = 0;
    for (Map.Entry<Integer, State> e : peers.entrySet()) {
      int osd = e.getKey();
      State s = e.getValue();
      if (late) {
        s.aliveAt = Math.max(s.aliveAt, now);
        s.missed = false;
      } else {
        if (s.pinging || s.missed) {
          misses++;
          s.missed = false;
        }
        if (s.pinging && now - s.sentAt > timeout) {
          overdue.add(osd);
          s.pinging = false;
        }
        if (grace != null && now - s.aliveAt > grace.toNanos()) {
          reports.add(new Report(osd, s.upFrom, (now - s.aliveAt) / 1_000_000, false));
          if (!s.reported) {
            newlyFailed.add(osd);
          }
          s.reported = true;
        }
      }
      if (!s.pinging) {
        ping.add(osd);
        s.pinging = true;
        s.sentAt = now;
      }
    }
    return new Tick(ping, overdue, misses, reports, newlyFailed);
  }

  /**
   * Peer {@code osd} (in incarnation {@code upFrom}) answered the ping sent at {@code sentAt}, at
   * {@code now}: the alive report to send when it had been reported failed and is no longer silent
   * past {@code grace}, else null. An answer for a peer gone or restarted since is ignored.
   */
  Report replied(int osd, long upFrom, long sentAt, long now, Duration grace) {
    State s = current(osd, upFrom);
    if (s == null) {
      return null;
    }
    if (s.pinging && s.sentAt == sentAt) {
      s.pinging = false;
    }
    s.aliveAt = Math.max(s.aliveAt, sentAt);
    if (s.reported && (grace == null || now - s.aliveAt <= grace.toNanos())) {
      s.reported = false;
      return new Report(osd, upFrom, 0, true);
    }
    return null;
  }

  /**
   * The ping sent at {@code sentAt} to {@code osd} failed (the link could not be made, or broke):
   * the next tick counts a miss and pings again.
   */
  void pingFailed(int osd, long upFrom, long sentAt) {
    State s = current(osd, upFrom);
    if (s != null && s.pinging && s.sentAt == sentAt) {
      s.pinging = false;
      s.missed = true;
    }
  }

  /** How many peers this OSD has. */
  int size() {
    return peers.size();
  }

  /** How many of them it reports failed now. */
  int reported() {
    int n = 0;
    for (State s : peers.values()) {
      n += s.reported ? 1 : 0;
    }
    return n;
  }

  private State current(int osd, long upFrom) {
    State s = peers.get(osd);
    return s != null && s.upFrom == upFrom ? s : null;
  }
}
