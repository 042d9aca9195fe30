package io.tidestore.cluster.pgstats;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A monitor's view of the PGs (Ceph's PGMap, kept by the monitor here as there is no manager): the
 * newest report of each OSD, and the state of every PG resolved from them and a map. A PG's state
 * is its acting primary's word for it, taken only when that primary's report is of its current
 * incarnation and of the PG's current interval; otherwise the map decides: {@code down} (no OSD of
 * it up), {@code undersized+degraded+peered} (fewer up than min_size), {@code unknown} (its primary
 * has not reported since it came up) or {@code peering} (it reported an earlier interval). A report
 * older than {@link #STALE_AFTER} is shown with {@code stale+}, as Ceph does. Thread-safe.
 */
public final class PgStates {
  /** Ceph's healthy state. */
  public static final String ACTIVE_CLEAN = "active+clean";

  /** A report this old says nothing current about its PGs. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(10);

  /** Recovery rates are taken over the reports of about this long. */
  private static final int RATE_SAMPLES = 6;

  private final Map<Integer, Received> reports = new ConcurrentHashMap<>();

  /** One OSD incarnation's newest report, and its recovery totals over the last few reports. */
  private record Received(
      long upFrom, long atNanos, Map<PgId, PgStat> pgs, ArrayDeque<long[]> samples) {}

  /**
   * Records {@code report} of OSD {@code osd} in its incarnation {@code upFrom}, at {@code now}.
   */
  public void record(int osd, long upFrom, PgReport report, long nowNanos) {
    Map<PgId, PgStat> byPg = new HashMap<>();
    for (PgStat s : report.pgs()) {
      byPg.put(s.pg(), s);
    }
    long[] sample = {nowNanos, report.recoveredObjects(), report.recoveredBytes()};
    reports.compute(
        osd,
        (id, old) -> {
          if (old != null && old.upFrom() > upFrom) {
            return old; // a late heartbeat of an earlier incarnation
          }
          ArrayDeque<long[]> samples =
              old != null && old.upFrom() == upFrom ? old.samples() : new ArrayDeque<>();
          synchronized (samples) {
            samples.addLast(sample);
            while (samples.size() > RATE_SAMPLES) {
              samples.removeFirst();
            }
          }
          return new Received(upFrom, nowNanos, byPg, samples);
        });
  }

  /** Every PG of {@code map} with its state, and the recovery rates, as of {@code now}. */
  public PgSummary summarize(ClusterMap map, long nowNanos) {
    List<PgSummary.Pg> pgs = new ArrayList<>();
    for (PgMapping mapping : Placement.of(map).all()) {
      pgs.add(resolve(map, mapping, nowNanos));
    }
    double objects = 0;
    double bytes = 0;
    for (var e : reports.entrySet()) {
      OsdInfo osd = map.osds().get(e.getKey());
      Received r = e.getValue();
      if (osd == null || !osd.up() || osd.upFrom() != r.upFrom()) {
        continue;
      }
      synchronized (r.samples()) {
        long[] first = r.samples().peekFirst();
        long[] last = r.samples().peekLast();
        double seconds = (last[0] - first[0]) / 1e9;
        if (seconds > 0 && nowNanos - last[0] < STALE_AFTER.toNanos()) {
          objects += (last[1] - first[1]) / seconds;
          bytes += (last[2] - first[2]) / seconds;
        }
      }
    }
    return new PgSummary(map.epoch(), objects, bytes, pgs);
  }

  private PgSummary.Pg resolve(ClusterMap map, PgMapping mapping, long nowNanos) {
    PgId id = mapping.pg();
    PoolInfo pool = map.pools().get(id.pool());
    int primary = mapping.actingPrimary();
    if (mapping.acting().isEmpty() || primary < 0) {
      return new PgSummary.Pg(id, "down", -1, Eversion.ZERO);
    }
    if (pool != null && mapping.acting().size() < pool.minSize()) {
      return new PgSummary.Pg(id, "undersized+degraded+peered", primary, Eversion.ZERO);
    }
    OsdInfo info = map.osds().get(primary);
    Received r = reports.get(primary);
    if (info == null || r == null || r.upFrom() != info.upFrom()) {
      return new PgSummary.Pg(id, "unknown", primary, Eversion.ZERO);
    }
    PgStat stat = r.pgs().get(id);
    if (stat == null || !stat.interval().equals(PgInterval.key(map, mapping))) {
      return new PgSummary.Pg(id, "peering", primary, stat == null ? Eversion.ZERO : stat.head());
    }
    String state =
        nowNanos - r.atNanos() > STALE_AFTER.toNanos() ? "stale+" + stat.state() : stat.state();
    return new PgSummary.Pg(id, state, primary, stat.head());
  }
}
