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
 */
public record ClusterSettings(
    List<InetSocketAddress> monitors,
    int requestedId,
    String host,
    double weight,
    Duration heartbeatInterval,
    LinkSecurity links,
    Duration deepScrubInterval) {

  /** One heartbeat a second: the monitors' default grace (6 s) tolerates five lost in a row. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  /** Ceph's {@code osd_deep_scrub_interval}: a week. */
  public static final Duration DEFAULT_DEEP_SCRUB_INTERVAL = Duration.ofDays(7);

  public ClusterSettings {
    monitors = List.copyOf(monitors);
    if (deepScrubInterval.isNegative()) {
      throw new IllegalArgumentException("the deep scrub interval is negative");
    }
  }

  /** These settings reaching the monitors through {@code other}. */
  public ClusterSettings withLinks(LinkSecurity other) {
    return new ClusterSettings(
        monitors, requestedId, host, weight, heartbeatInterval, other, deepScrubInterval);
  }
}
