package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.wire.WireException;
import java.time.Duration;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Marks OSDs down and out. Every monitor records the heartbeats it receives (OSDs send them to
 * every monitor), but only the leader acts: an OSD up in the map that no heartbeat reached within
 * the grace is proposed down; one down longer than the down-out interval is proposed out. A monitor
 * that just became leader counts the grace from then, so an election never marks OSDs down by
 * itself. The leader also creates the cluster (fsid, pool rbd) when the map is empty.
 */
final class FailureDetector implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(FailureDetector.class.getName());

  private final Duration grace;
  private final Duration downOut;
  private final FailureDomain defaultFailureDomain;
  private final Supplier<ClusterMap> map;
  private final BooleanSupplier leaderReady;
  private final Proposer proposer;
  private final Map<Integer, Seen> seen = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-mon-failure-detector").unstarted(r));
  private volatile long leaderSinceNanos = Long.MIN_VALUE;

  /** The last heartbeat (or boot) this monitor saw of one OSD incarnation. */
  private record Seen(long upFrom, long atNanos) {}

  FailureDetector(
      Duration grace,
      Duration downOut,
      FailureDomain defaultFailureDomain,
      Supplier<ClusterMap> map,
      BooleanSupplier leaderReady,
      Proposer proposer) {
    this.grace = grace;
    this.downOut = downOut;
    this.defaultFailureDomain = defaultFailureDomain;
    this.map = map;
    this.leaderReady = leaderReady;
    this.proposer = proposer;
  }

  void start() {
    long period = Math.clamp(grace.toMillis() / 6, 50, 1000);
    timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  /** A heartbeat from {@code osdId} in its incarnation {@code upFrom}. */
  void heartbeat(int osdId, long upFrom) {
    long now = System.nanoTime();
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

  private void tick() {
    try {
      if (!leaderReady.getAsBoolean()) {
        leaderSinceNanos = Long.MIN_VALUE;
        return;
      }
      long now = System.nanoTime();
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
      for (OsdInfo osd : current.osds().values()) {
        if (osd.up()) {
          Seen last = seen.get(osd.id());
          long lastNanos =
              Math.max(
                  leaderSinceNanos,
                  last != null && last.upFrom() >= osd.upFrom() ? last.atNanos() : Long.MIN_VALUE);
          if (now - lastNanos > grace.toNanos()) {
            down.put(osd.id(), osd.upFrom());
          }
        } else if (osd.in() && wallNow - osd.stateSinceMillis() >= downOut.toMillis()) {
          out.put(osd.id(), osd.upFrom());
        }
      }
      if (!down.isEmpty()) {
        LOG.info("marking down (no heartbeat within " + grace.toMillis() + " ms): " + names(down));
        proposer.propose(new MapCommand.MarkDown(down, wallNow));
      }
      if (!out.isEmpty()) {
        LOG.info("marking out (down for " + downOut.toSeconds() + " s or more): " + names(out));
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

  private static String names(SortedMap<Integer, Long> ids) {
    StringBuilder names = new StringBuilder();
    for (int id : ids.keySet()) {
      names.append(names.isEmpty() ? "" : ", ").append("osd.").append(id);
    }
    return names.toString();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
