package io.tidestore.store.api;

/**
 * A snapshot of one shard's counters, taken on its owner thread. Write amplification is device
 * bytes written by the journal and the cleaner divided by user bytes written.
 *
 * @param userBytesWritten bytes passed to write()
 * @param journalBytesWritten record bytes written for user operations
 * @param cleanerBytesWritten record bytes the cleaner wrote relocating live blocks
 * @param records records written
 * @param journalFlushes shared fdatasyncs that made records durable (0 when each record is written
 *     with RWF_DSYNC); records / flushes is how many records one cache flush served
 * @param segmentsTotal segments in the shard
 * @param segmentsFree segments free for new records
 * @param segmentsCleaned segments the cleaner reclaimed
 * @param liveBlocks 4 KiB blocks referenced by the index
 * @param objects objects in the shard
 * @param indexBytes heap and off-heap bytes of the object index
 * @param checkpoints checkpoints written since mount
 * @param spaceWaitMaxNanos longest time a write waited for the cleaner to free space
 * @param spaceWaits writes that waited for the cleaner to free space
 * @param spaceWaitNanos total time writes waited for space
 * @param segmentBytes bytes per segment (free bytes = segmentsFree x segmentBytes)
 * @param capacityBytes bytes of data users can store: the segments less the cleaner's reserve and
 *     the open segment, each counted at the live blocks that leave cleaning a segment's worth of
 *     slack (docs/format.md "Capacity"); a write that would take live data ({@code liveBlocks} x 4
 *     KiB) past it fails with NO_SPACE
 * @param readOnlyReason why an I/O error turned the shard read-only (the failed operation and its
 *     errno), or null while it accepts writes
 * @param checkpointsDeferred checkpoints that found the file system full and were retried later
 * @param scrub the online scrub's progress and findings
 */
public record ShardStats(
    long userBytesWritten,
    long journalBytesWritten,
    long cleanerBytesWritten,
    long records,
    long journalFlushes,
    int segmentsTotal,
    int segmentsFree,
    long segmentsCleaned,
    long liveBlocks,
    long objects,
    long indexBytes,
    long checkpoints,
    long spaceWaitMaxNanos,
    long spaceWaits,
    long spaceWaitNanos,
    int segmentBytes,
    long capacityBytes,
    String readOnlyReason,
    long checkpointsDeferred,
    ScrubStats scrub) {

  /** Whether an I/O error turned the shard read-only. */
  public boolean readOnly() {
    return readOnlyReason != null;
  }

  /** (journal + cleaner bytes) / user bytes; 0 before any write. */
  public double writeAmplification() {
    return userBytesWritten == 0
        ? 0
        : (double) (journalBytesWritten + cleanerBytesWritten) / userBytesWritten;
  }
}
