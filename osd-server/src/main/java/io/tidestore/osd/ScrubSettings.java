package io.tidestore.osd;

/**
 * The online scrub's schedule and pace (docs/reliability.md "Scrub").
 *
 * @param intervalNanos time from the end of one scheduled pass (or from mount) to the next; 0
 *     schedules none (a pass still runs on demand: {@code tidestore admin scrub})
 * @param bytesPerSecond reads the scrub may make per second, over the whole daemon (split evenly
 *     over the shards)
 */
public record ScrubSettings(long intervalNanos, long bytesPerSecond) {
  /** A pass a week, as Ceph's osd_deep_scrub_interval. */
  public static final long DEFAULT_INTERVAL_NANOS = 7L * 24 * 3600 * 1_000_000_000L;

  /**
   * 16 MiB/s over the daemon: 256 reads of 64 KiB a second, next to the tens of thousands of client
   * IOPS a disk serves here, well under 10% of them; a 1 TiB store is scrubbed in a day.
   */
  public static final long DEFAULT_BYTES_PER_SECOND = 16L << 20;

  public ScrubSettings {
    if (intervalNanos < 0 || bytesPerSecond < 4096) {
      throw new IllegalArgumentException(
          "scrub interval must be >= 0 and the scrub rate at least 4096 bytes/s");
    }
  }

  public static ScrubSettings defaults() {
    return new ScrubSettings(DEFAULT_INTERVAL_NANOS, DEFAULT_BYTES_PER_SECOND);
  }
}
