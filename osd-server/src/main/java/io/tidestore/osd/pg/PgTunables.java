package io.tidestore.osd.pg;

import java.time.Duration;

/**
 * How a cluster OSD paces the work it does for its PGs besides client ops (docs/cluster.md, "Async
 * recovery" and "Deep scrub").
 *
 * @param deepScrubInterval how often each PG this OSD is the primary of is deep-scrubbed ({@code
 *     osd --deep-scrub-interval}; zero: only on demand)
 * @param scrubBytesPerSecond how fast a deep scrub it leads reads each object's copies ({@code osd
 *     --scrub-rate}, which the store's own scrub keeps to as well; 0: unpaced)
 * @param recoveryMaxActive how many PGs it recovers at once while they serve ({@code
 *     --recovery-max-active})
 * @param recoverySleep the pause for each MiB such a recovery moves ({@code --recovery-sleep})
 */
public record PgTunables(
    Duration deepScrubInterval,
    long scrubBytesPerSecond,
    int recoveryMaxActive,
    Duration recoverySleep) {
  public PgTunables {
    if (deepScrubInterval.isNegative()
        || scrubBytesPerSecond < 0
        || recoveryMaxActive < 1
        || recoverySleep.isNegative()) {
      throw new IllegalArgumentException(
          "PG tunables out of range: deep scrub every "
              + deepScrubInterval
              + ", scrub "
              + scrubBytesPerSecond
              + " B/s, recovery max active "
              + recoveryMaxActive
              + ", recovery sleep "
              + recoverySleep);
    }
  }
}
