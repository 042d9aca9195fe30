package io.tidestore.store.api;

import java.util.List;

/**
 * A shard's online scrub, as of a {@link ShardStats} snapshot: the scrub reads every mapped block
 * back through the shard's read scheduling and checks its crc32c, and checks the index against the
 * log (locations, per-segment live counts), at a throttled rate.
 *
 * @param running whether a pass is under way
 * @param passes passes completed since mount
 * @param passBlocksDone blocks the current (or last) pass has checked
 * @param passBlocksTotal mapped blocks when the current (or last) pass started
 * @param blocksChecked blocks checked since mount
 * @param bytesChecked bytes read and checked since mount
 * @param errors damaged blocks and index faults found since mount
 * @param rateBytesPerSecond the configured read rate
 * @param intervalNanos time between scheduled passes (0: only on demand)
 * @param lastPassEndMillis wall-clock end of the last completed pass (epoch ms), 0 before one
 * @param damaged the most recent findings (at most {@link #MAX_DAMAGED}), each naming the object,
 *     the byte offset in it and what failed
 */
public record ScrubStats(
    boolean running,
    long passes,
    long passBlocksDone,
    long passBlocksTotal,
    long blocksChecked,
    long bytesChecked,
    long errors,
    long rateBytesPerSecond,
    long intervalNanos,
    long lastPassEndMillis,
    List<String> damaged) {

  /** Findings kept for the status page; the log has every one. */
  public static final int MAX_DAMAGED = 32;
}
