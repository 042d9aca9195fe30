package io.tidestore.store.api;

/**
 * Runtime settings of a shard (the on-disk geometry is fixed at mkfs and lives in the superblock).
 *
 * @param maxBatchBytes group commit: seal a batch once its record would exceed this many bytes
 * @param maxBatchOps group commit: seal a batch once it holds this many operations
 * @param maxBatchAgeNanos group commit: seal a batch whose oldest operation waited this long, at
 *     the next call into the shard, even if the loop did not end its pass
 * @param maxBatchesInFlight journal writes outstanding at once; later sealed batches wait
 * @param checkpointEveryBytes write an index checkpoint after this many journal bytes
 * @param cleanerPolicy victim choice
 * @param cleanerLowWaterSegments clean urgently (several victims at once) when free segments drop
 *     to this many; background cleaning starts at twice as many ({@link
 *     #cleanerHighWaterSegments()})
 * @param reserveSegments segments kept for the cleaner and checkpoints; user writes that would eat
 *     into them fail with NO_SPACE
 * @param journalFlush how a journal record becomes durable (RWF_DSYNC per record, or a shared
 *     fdatasync)
 * @param overprovisionPercent share of the segments users may not fill (besides the reserve and the
 *     open segment): headroom that keeps cleaning cheap when the store is nearly full, as an SSD
 *     keeps spare flash. The capacity the store reports, and enforces with NO_SPACE, is the rest
 */
public record StoreConfig(
    int maxBatchBytes,
    int maxBatchOps,
    long maxBatchAgeNanos,
    int maxBatchesInFlight,
    long checkpointEveryBytes,
    CleanerPolicy cleanerPolicy,
    int cleanerLowWaterSegments,
    int reserveSegments,
    JournalFlush journalFlush,
    int overprovisionPercent) {

  /**
   * Default headroom. Uniform random 4 KiB overwrites of a store filled to 90% of its capacity cost
   * write amplification ~6.3 with 0% (victims 83% live), ~2.3 with 25% and ~1.95 with 30% (victims
   * ~45% live), and the full store's throughput is bound by the disk bandwidth its cleaning takes
   * (docs/benchmarks.md "Cleaner at 90% full"). Enterprise SSDs keep a similar share of spare flash
   * for the same reason.
   */
  public static final int DEFAULT_OVERPROVISION_PERCENT = 30;

  public StoreConfig {
    if (maxBatchBytes < 8192 || maxBatchBytes % 4096 != 0) {
      throw new IllegalArgumentException("maxBatchBytes must be a multiple of 4096, >= 8192");
    }
    if (maxBatchOps < 1 || maxBatchesInFlight < 1) {
      throw new IllegalArgumentException("maxBatchOps and maxBatchesInFlight must be >= 1");
    }
    if (reserveSegments < 1 || cleanerLowWaterSegments <= reserveSegments) {
      throw new IllegalArgumentException(
          "need reserveSegments >= 1 and cleanerLowWaterSegments > reserveSegments");
    }
    if (journalFlush == null) {
      throw new IllegalArgumentException("journalFlush is required");
    }
    if (overprovisionPercent < 0 || overprovisionPercent > 90) {
      throw new IllegalArgumentException(
          "overprovisionPercent must be within [0, 90]: " + overprovisionPercent);
    }
  }

  /** Free segments at which background cleaning (one victim at a time) starts. */
  public int cleanerHighWaterSegments() {
    return 2 * cleanerLowWaterSegments;
  }

  /**
   * Defaults for a daemon: 1 MiB / 256-op batches, 4 in flight, greedy cleaning, the journal flush
   * the layout does best ({@link JournalFlush#AUTO}: one fdatasync for the shards on a queue where
   * they share a volume; see docs/benchmarks.md "One flush for the shards of a reactor"), urgent
   * cleaning one segment above the 2-segment reserve: free segments kept ahead of need are space
   * live data cannot spread into, which raises every victim's utilisation (at 90% of capacity, a
   * low water of 6 cost WA ~13.5, of 3 ~7; see docs/benchmarks.md "Cleaner at 90% full").
   */
  public static StoreConfig defaults() {
    return new StoreConfig(
        1 << 20,
        256,
        1_000_000L,
        4,
        256L << 20,
        CleanerPolicy.GREEDY,
        3,
        2,
        JournalFlush.AUTO,
        DEFAULT_OVERPROVISION_PERCENT);
  }

  public StoreConfig withCleanerPolicy(CleanerPolicy policy) {
    return new StoreConfig(
        maxBatchBytes,
        maxBatchOps,
        maxBatchAgeNanos,
        maxBatchesInFlight,
        checkpointEveryBytes,
        policy,
        cleanerLowWaterSegments,
        reserveSegments,
        journalFlush,
        overprovisionPercent);
  }

  public StoreConfig withCheckpointEveryBytes(long bytes) {
    return new StoreConfig(
        maxBatchBytes,
        maxBatchOps,
        maxBatchAgeNanos,
        maxBatchesInFlight,
        bytes,
        cleanerPolicy,
        cleanerLowWaterSegments,
        reserveSegments,
        journalFlush,
        overprovisionPercent);
  }

  public StoreConfig withJournalFlush(JournalFlush flush) {
    return new StoreConfig(
        maxBatchBytes,
        maxBatchOps,
        maxBatchAgeNanos,
        maxBatchesInFlight,
        checkpointEveryBytes,
        cleanerPolicy,
        cleanerLowWaterSegments,
        reserveSegments,
        flush,
        overprovisionPercent);
  }

  public StoreConfig withOverprovisionPercent(int percent) {
    return new StoreConfig(
        maxBatchBytes,
        maxBatchOps,
        maxBatchAgeNanos,
        maxBatchesInFlight,
        checkpointEveryBytes,
        cleanerPolicy,
        cleanerLowWaterSegments,
        reserveSegments,
        journalFlush,
        percent);
  }
}
