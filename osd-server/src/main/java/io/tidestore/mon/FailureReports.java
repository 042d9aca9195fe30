package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.wire.FailureMessages.OsdFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The OSDs' reports about heartbeat peers that stopped answering (Ceph's {@code failure_info_t}):
 * every monitor keeps them, the leader's {@link FailureDetector} asks which OSDs they put down. An
 * OSD is due when at least {@link #required} distinct reporters, each up in the map in the
 * incarnation it reported from, report its current incarnation, and the earliest of their failures
 * began at least the grace ago. A report expires when its reporter has not renewed it within twice
 * the grace (reporters renew every heartbeat), is taken back by an alive report, or stops counting
 * when its target or its reporter changes incarnation or goes down. Times are {@link
 * System#nanoTime} values passed in, so the rule is tested on a clock of the test's own.
 * Thread-safe.
 */
final class FailureReports {
  private static final Logger LOG = Logger.getLogger(FailureReports.class.getName());

  private final Duration grace;
  private final int minReporters;

  /** Target, then reporter, to its newest report. Guarded by this. */
  private final Map<Integer, Map<Integer, Kept>> byTarget = new HashMap<>();

  private long failedReceived; // guarded by this
  private long aliveReceived; // guarded by this

  /** A report as kept: when its failure began by the reporter's clock, when it last came. */
  private record Kept(OsdFailure report, long failedSinceNanos, long receivedNanos) {}

  /** An OSD the reports put down, its incarnation and who reported it. */
  record Due(int osd, long upFrom, List<Integer> reporters) {}

  /**
   * @param grace how long a target must have failed before it is marked down ({@code
   *     --osd-heartbeat-grace})
   * @param minReporters distinct reporters needed ({@code --mon-osd-min-down-reporters})
   */
  FailureReports(Duration grace, int minReporters) {
    if (minReporters < 1) {
      throw new IllegalArgumentException("min down reporters " + minReporters + " is below 1");
    }
    this.grace = grace;
    this.minReporters = minReporters;
  }

  /**
   * Reporters needed to mark an OSD down in a cluster of {@code inOsds} OSDs in the map (the target
   * among them): {@code --mon-osd-min-down-reporters}, but never more than the other OSDs, so a
   * cluster of 2 can mark one down on the other's word, and never fewer than 1. Counted over the
   * OSDs in, not those up: with one of 3 down, a single OSD its peers cannot reach (it reports them
   * all, every interval) must not mark a healthy one down on its word alone.
   */
  int required(int inOsds) {
    return Math.max(1, Math.min(minReporters, inOsds - 1));
  }

  /** Keeps (or renews) a failed report, or removes the reporter's report of an alive one. */
  synchronized void record(OsdFailure report, long nowNanos) {
    if (report.alive()) {
      aliveReceived++;
      Map<Integer, Kept> reporters = byTarget.get(report.target());
      if (reporters != null && reporters.remove(report.reporter()) != null) {
        LOG.info("osd." + report.reporter() + " hears from osd." + report.target() + " again");
        if (reporters.isEmpty()) {
          byTarget.remove(report.target());
        }
      }
      return;
    }
    failedReceived++;
    Kept old =
        byTarget
            .computeIfAbsent(report.target(), t -> new HashMap<>())
            .put(
                report.reporter(),
                new Kept(report, nowNanos - report.failedForMillis() * 1_000_000L, nowNanos));
    if (old == null || old.report().targetUpFrom() != report.targetUpFrom()) {
      LOG.info(
          "osd."
              + report.reporter()
              + " reports osd."
              + report.target()
              + " failed: no answer for "
              + report.failedForMillis()
              + " ms");
    }
  }

  /** Failed reports received (renewals included). */
  synchronized long failedReceived() {
    return failedReceived;
  }

  /** Alive reports received. */
  synchronized long aliveReceived() {
    return aliveReceived;
  }

  /**
   * The OSDs of {@code map} that the reports put down now, by id; drops the reports that can no
   * longer count (expired, about an incarnation that is gone, from a reporter that is).
   */
  synchronized SortedMap<Integer, Due> due(ClusterMap map, long nowNanos) {
    SortedMap<Integer, Due> due = new TreeMap<>();
    int required = required(map.numIn());
    for (Iterator<Map.Entry<Integer, Map<Integer, Kept>>> targets = byTarget.entrySet().iterator();
        targets.hasNext(); ) {
      Map.Entry<Integer, Map<Integer, Kept>> entry = targets.next();
      OsdInfo target = map.osds().get(entry.getKey());
      List<Integer> reporters = new ArrayList<>();
      long failedSince = Long.MAX_VALUE;
      for (Iterator<Kept> kept = entry.getValue().values().iterator(); kept.hasNext(); ) {
        Kept k = kept.next();
        if (!counts(k, target, map, nowNanos)) {
          if (gone(k, target, map, nowNanos)) {
            kept.remove();
          }
          continue;
        }
        reporters.add(k.report().reporter());
        failedSince = Math.min(failedSince, k.failedSinceNanos());
      }
      if (entry.getValue().isEmpty()) {
        targets.remove();
      } else if (reporters.size() >= required && nowNanos - failedSince >= grace.toNanos()) {
        reporters.sort(null);
        due.put(target.id(), new Due(target.id(), target.upFrom(), List.copyOf(reporters)));
      }
    }
    return due;
  }

  /** Whether {@code k} is about {@code target}'s current incarnation, from a reporter up now. */
  private boolean counts(Kept k, OsdInfo target, ClusterMap map, long nowNanos) {
    OsdInfo reporter = map.osds().get(k.report().reporter());
    return target != null
        && target.up()
        && target.upFrom() == k.report().targetUpFrom()
        && reporter != null
        && reporter.up()
        && reporter.upFrom() == k.report().reporterUpFrom()
        && nowNanos - k.receivedNanos() <= 2 * grace.toNanos();
  }

  /**
   * Whether {@code k} can never count again: expired, or its target or reporter is down or in a
   * later incarnation than reported. A report from an incarnation the map has not reached yet (this
   * monitor applies the map a little behind the reporter) is kept.
   */
  private boolean gone(Kept k, OsdInfo target, ClusterMap map, long nowNanos) {
    OsdInfo reporter = map.osds().get(k.report().reporter());
    return nowNanos - k.receivedNanos() > 2 * grace.toNanos()
        || target == null
        || !target.up()
        || target.upFrom() > k.report().targetUpFrom()
        || reporter == null
        || !reporter.up()
        || reporter.upFrom() > k.report().reporterUpFrom();
  }
}
