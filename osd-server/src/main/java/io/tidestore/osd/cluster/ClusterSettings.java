package io.tidestore.osd.cluster;

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
 */
public record ClusterSettings(
    List<InetSocketAddress> monitors,
    int requestedId,
    String host,
    double weight,
    Duration heartbeatInterval) {

  /** One heartbeat a second: the monitors' default grace (6 s) tolerates five lost in a row. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  public ClusterSettings {
    monitors = List.copyOf(monitors);
  }
}
