package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.wire.FailureMessages;
import io.tidestore.cluster.wire.WireException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Marks OSDs down and out. Every monitor records the heartbeats it receives (OSDs send them to
 * every monitor) and the OSDs' failure reports about their peers ({@link FailureReports}), but only
 * the leader acts: an OSD up in the map is proposed down when no heartbeat reached this monitor
 * within the grace, or when its peers' reports put it down (so a dead OSD is marked down even with
 * no peer left to report it, and one that still reaches the monitors but not its peers is marked
 * down too); one down longer than the down-out interval is proposed out. A monitor that just became
 * leader counts the grace from then, so an election never marks OSDs down by itself. The leader
 * also creates the cluster (fsid, pool rbd) when the map is empty. Time is a {@link LongSupplier}
 * of nanoseconds, {@link System#nanoTime} in the daemon.
 */
final class FailureDetector implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(FailureDetector.class.getName());

  private final Duration grace;
  private final Duration downOut;
  private final FailureDomain defaultFailureDomain;
  private final Supplier<ClusterMap> map;
  private final BooleanSupplier leaderReady;
  private final Proposals proposer;
  private final FailureReports reports;
  private final LongSupplier clock;
  private final Map<Integer, Seen> seen = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-mon-failure-detector").unstarted(r));
  private volatile long leaderSinceNanos = Long.MIN_VALUE;

  /** The last heartbeat (or boot) this monitor saw of one OSD incarnation. */
  private record Seen(long upFrom, long atNanos) {}

  /** Where the detector's map changes go: {@link Proposer#propose(MapCommand)} in the daemon. */
  @FunctionalInterface
  interface Proposals {
    void propose(MapCommand command) throws WireException, InterruptedException;
  }

  /**
   * @param reports the OSDs' failure reports, which this monitor keeps
   * @param clock nanoseconds, as {@link System#nanoTime}
   */
  FailureDetector(
      Duration grace,
      Duration downOut,
      FailureDomain defaultFailureDomain,
      Supplier<ClusterMap> map,
      BooleanSupplier leaderReady,
      Proposals proposer,
      FailureReports reports,
      LongSupplier clock) {
    this.grace = grace;
    this.downOut = downOut;
    this.defaultFailureDomain = defaultFailureDomain;
    this.map = map;
    this.leaderReady = leaderReady;
    this.proposer = proposer;
    this.reports = reports;
    this.clock = clock;
  }

  void start() {
    long period = Math.clamp(grace.toMillis() / 6, 50, 1000);
    timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  /** The grace of both rules, which heartbeat replies tell the OSDs. */
  Duration grace() {
    return grace;
  }

  /** A heartbeat from {@code osdId} in its incarnation {@code upFrom}. */
  void heartbeat(int osdId, long upFrom) {
    long now = clock.getAsLong();
    seen.merge(
        osdId, new Seen(upFrom, now), (old, fresh) -> fresh.upFrom() >= old.upFrom() ? fresh : old);
  }

  /** A new map: an OSD marked up in it counts as seen now, so its grace starts at its boot. */
  void onMap(ClusterMap newMap) {
    for (OsdInfo osd : newMap.osds().values()) {
      if (osd.up()) {
        Seen old = seen.get(osd.id());
        if (old == null || old.upFrom() < osd.upFrom()) {
          heartbeat(osd.id(), osd.upFrom());
        }
      }
    }
  }

  /** An OSD's report about a heartbeat peer. */
  void failureReport(FailureMessages.OsdFailure report) {
    reports.record(report, clock.getAsLong());
  }

  /** One round: run by the timer, and by tests on their own clock. */
  void tick() {
    try {
      if (!leaderReady.getAsBoolean()) {
        leaderSinceNanos = Long.MIN_VALUE;
        return;
      }
      long now = clock.getAsLong();
      if (leaderSinceNanos == Long.MIN_VALUE) {
        leaderSinceNanos = now;
      }
      ClusterMap current = map.get();
      if (!current.initialized()) {
        proposer.propose(
            new MapCommand.Init(
                UUID.randomUUID(), System.currentTimeMillis(), defaultFailureDomain));
        LOG.info("created the cluster: pool rbd (size 3, min_size 2, pg_num 64)");
        return;
      }
      SortedMap<Integer, Long> down = new TreeMap<>();
      SortedMap<Integer, Long> out = new TreeMap<>();
      long wallNow = System.currentTimeMillis();
      SortedMap<Integer, FailureReports.Due> reported = reports.due(current, now);
      List<String> why = new ArrayList<>();
      for (OsdInfo osd : current.osds().values()) {
        if (osd.up()) {
          Seen last = seen.get(osd.id());
          long lastNanos =
              Math.max(
                  leaderSinceNanos,
                  last != null && last.upFrom() >= osd.upFrom() ? last.atNanos() : Long.MIN_VALUE);
          String reason = reason(now - lastNanos > grace.toNanos(), reported.get(osd.id()));
          if (reason != null) {
            down.put(osd.id(), osd.upFrom());
            why.add("osd." + osd.id() + ": " + reason);
          }
        } else if (osd.in() && wallNow - osd.stateSinceMillis() >= downOut.toMillis()) {
          out.put(osd.id(), osd.upFrom());
        }
      }
      if (!down.isEmpty()) {
        LOG.info("marking down " + names(down.keySet()) + " (" + String.join("; ", why) + ")");
        proposer.propose(new MapCommand.MarkDown(down, wallNow));
      }
      if (!out.isEmpty()) {
        LOG.info(
            "marking out (down for " + downOut.toSeconds() + " s or more): " + names(out.keySet()));
        proposer.propose(new MapCommand.MarkOut(out));
      }
    } catch (WireException e) {
      LOG.warning("failure detector: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "failure detector tick failed", e);
    }
  }

  /** Why an up OSD goes down, or null when it stays up. */
  private String reason(boolean silent, FailureReports.Due reported) {
    String noHeartbeat = "no heartbeat within " + grace.toMillis() + " ms";
    String reports =
        reported == null ? null : "failure reports from " + names(reported.reporters());
    if (silent) {
      return reports == null ? noHeartbeat : noHeartbeat + ", " + reports;
    }
    return reports;
  }

  private static String names(Iterable<Integer> ids) {
    StringBuilder names = new StringBuilder();
    for (int id : ids) {
      names.append(names.isEmpty() ? "" : ", ").append("osd.").append(id);
    }
    return names.toString();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
