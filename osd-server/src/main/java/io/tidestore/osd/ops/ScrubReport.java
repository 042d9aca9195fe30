package io.tidestore.osd.ops;

import java.util.List;

/**
 * What a deep scrub of one PG found (the reply to DEEP_SCRUB, the OSD's log line): how much it
 * compared, each bad copy it found and whether it was repaired, and the objects it left to
 * recovery. Lists are capped ({@link #MAX_LISTED}); the counts are whole. Immutable.
 *
 * @param pg the PG, as Ceph writes it
 * @param primary the OSD that scrubbed it
 * @param objects objects compared across the acting set
 * @param blocks blocks compared (each object's blocks, once per object)
 * @param inconsistent bad copies found
 * @param repaired bad copies replaced by the authoritative copy and checked again
 * @param skipped objects not compared: the members' versions differ (recovery's business)
 * @param millis how long the scrub took
 * @param findings the bad copies (at most {@link #MAX_LISTED})
 * @param skippedObjects "name: why" of skipped objects (at most {@link #MAX_LISTED})
 */
public record ScrubReport(
    String pg,
    int primary,
    long objects,
    long blocks,
    int inconsistent,
    int repaired,
    int skipped,
    long millis,
    List<Finding> findings,
    List<String> skippedObjects) {

  /** Findings and skipped objects a report lists at most; the log has every one. */
  public static final int MAX_LISTED = 1000;

  /** Block indexes one finding lists at most; {@link Finding#badBlocks} counts them all. */
  public static final int MAX_BLOCKS = 256;

  public ScrubReport {
    findings = List.copyOf(findings);
    skippedObjects = List.copyOf(skippedObjects);
  }

  /** Bad copies left as they were (no authoritative copy, or the repair failed). */
  public int unrepaired() {
    return inconsistent - repaired;
  }

  /**
   * One bad copy of an object, or an object no copy of which can be trusted.
   *
   * @param object the object's name
   * @param osd the OSD holding the bad copy, or -1 when no copy is authoritative
   * @param problem what is wrong, in words ("2 blocks differ", "3 blocks unreadable", ...)
   * @param badBlocks how many blocks differ from the authority's or were unreadable
   * @param blocks their indexes (4 KiB blocks), at most {@link #MAX_BLOCKS}
   * @param repaired whether it now holds the authoritative copy
   */
  public record Finding(
      String object,
      int osd,
      String problem,
      int badBlocks,
      List<Integer> blocks,
      boolean repaired) {
    public Finding {
      blocks = List.copyOf(blocks);
    }
  }
}
