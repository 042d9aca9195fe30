package io.tidestore.cluster.pgstats;

import java.util.List;

/**
 * What an OSD reports with each heartbeat: the PGs it is primary of, and its recovery totals since
 * it started (a monitor turns two reports into rates).
 *
 * @param mapEpoch the OSD's map when it made the report
 * @param recoveredObjects objects this OSD pushed or pulled for recovery since it started
 * @param recoveredBytes the bytes of those
 * @param pgs the PGs this OSD is the acting primary of
 */
public record PgReport(
    long mapEpoch, long recoveredObjects, long recoveredBytes, List<PgStat> pgs) {

  /** An OSD that reports nothing (an old OSD's heartbeat, or one that has no PGs loaded yet). */
  public static final PgReport NONE = new PgReport(0, 0, 0, List.of());

  public PgReport {
    pgs = List.copyOf(pgs);
  }
}
