package io.tidestore.osd.cluster;

import io.tidestore.cluster.wire.LinkSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * How an OSD joins a cluster.
 *
 * @param monitors the monitors' addresses ({@code --mon})
 * @param requestedId {@code --id}, or -1: the id stored in the data directory, else a new one
 * @param host the host label ({@code --host}, default the hostname)
 * @param weight {@code --weight}
 * @param heartbeatInterval how often it heartbeats every monitor
 * @param links how it reaches the monitors: TLS when its own listeners have it ({@code --tls})
 * @param deepScrubInterval how often it deep-scrubs each PG it is the primary of ({@code
 *     --deep-scrub-interval}; zero: only on demand)
 * @param recoveryMaxActive how many PGs at once it recovers while they serve ({@code
 *     --recovery-max-active}, Ceph's {@code osd_recovery_max_active})
 * @param recoverySleep its pause for each MiB such a recovery moves ({@code --recovery-sleep},
 *     Ceph's {@code osd_recovery_sleep})
 */
public record ClusterSettings(
    List<InetSocketAddress> monitors,
    int requestedId,
    String host,
    double weight,
    Duration heartbeatInterval,
    LinkSecurity links,
    Duration deepScrubInterval,
    int recoveryMaxActive,
    Duration recoverySleep) {

  /** One heartbeat a second: the monitors' default grace (6 s) tolerates five lost in a row. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  /** PGs an OSD recovers at once by default: Ceph's osd_recovery_max_active for HDDs. */
  public static final int DEFAULT_RECOVERY_MAX_ACTIVE = 3;

  /** Most PGs an OSD may recover at once while they serve. */
  public static final int MAX_RECOVERY_ACTIVE = 64;

  /** The longest pause for each MiB a recovery moves (longer is a stop, not a throttle). */
  public static final Duration MAX_RECOVERY_SLEEP = Duration.ofSeconds(10);

  /** Ceph's {@code osd_deep_scrub_interval}: a week. */
  public static final Duration DEFAULT_DEEP_SCRUB_INTERVAL = Duration.ofDays(7);

  public ClusterSettings {
    monitors = List.copyOf(monitors);
    if (deepScrubInterval.isNegative()) {
      throw new IllegalArgumentException("the deep scrub interval is negative");
    }
    if (recoveryMaxActive < 1 || recoveryMaxActive > MAX_RECOVERY_ACTIVE) {
      throw new IllegalArgumentException(
          "recovery max active " + recoveryMaxActive + " is not 1-" + MAX_RECOVERY_ACTIVE);
    }
    if (recoverySleep.isNegative() || recoverySleep.compareTo(MAX_RECOVERY_SLEEP) > 0) {
      throw new IllegalArgumentException(
          "recovery sleep " + recoverySleep + " is not 0 to " + MAX_RECOVERY_SLEEP);
    }
  }

  /** These settings reaching the monitors through {@code other}. */
  public ClusterSettings withLinks(LinkSecurity other) {
    return new ClusterSettings(
        monitors,
        requestedId,
        host,
        weight,
        heartbeatInterval,
        other,
        deepScrubInterval,
        recoveryMaxActive,
        recoverySleep);
  }
}
