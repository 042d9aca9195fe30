package io.tidestore.osd.pg;

import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.osd.ops.ScrubReport.Finding;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * What one deep scrub of a PG has found so far, turned into its {@link ScrubReport} at the end.
 * Every bad copy is logged as it is found (the report lists at most {@link
 * ScrubReport#MAX_LISTED}). Owned by the PG's shard thread.
 */
final class ScrubTally {
  private static final Logger LOG = Logger.getLogger(ScrubTally.class.getName());

  private final String pg;
  private final int primary;
  private final long startedNanos = System.nanoTime();
  private long objects;
  private long blocks;
  private int inconsistent;
  private int repaired;
  private int skipped;
  private final List<Finding> findings = new ArrayList<>();
  private final List<String> skippedObjects = new ArrayList<>();

  ScrubTally(String pg, int primary) {
    this.pg = pg;
    this.primary = primary;
  }

  /** Blocks compared so far. */
  long blocks() {
    return blocks;
  }

  /** An object compared across the acting set, {@code blockCount} blocks of it. */
  void compared(long blockCount) {
    objects++;
    blocks += blockCount;
  }

  /** A bad copy (or an object without an authoritative copy), repaired or not. */
  void found(Finding f) {
    inconsistent++;
    if (f.repaired()) {
      repaired++;
    }
    LOG.warning(
        "pg "
            + pg
            + " deep scrub: "
            + f.object()
            + (f.osd() < 0 ? "" : " on osd." + f.osd())
            + ": "
            + f.problem()
            + (f.blocks().isEmpty() ? "" : " (blocks " + f.blocks() + ")")
            + (f.repaired() ? ", repaired" : ", NOT repaired"));
    if (findings.size() < ScrubReport.MAX_LISTED) {
      findings.add(f);
    }
  }

  /** An object left to recovery. */
  void skipped(String name, String why) {
    skipped++;
    LOG.info("pg " + pg + " deep scrub: skipped " + name + ": " + why);
    if (skippedObjects.size() < ScrubReport.MAX_LISTED) {
      skippedObjects.add(name + ": " + why);
    }
  }

  ScrubReport report() {
    return new ScrubReport(
        pg,
        primary,
        objects,
        blocks,
        inconsistent,
        repaired,
        skipped,
        (System.nanoTime() - startedNanos) / 1_000_000,
        findings,
        skippedObjects);
  }
}
