package io.tidestore.osd;

import java.net.InetAddress;
import java.nio.file.Path;

/**
 * The daemon's settings after flags, file and embedded defaults were merged and checked.
 *
 * @param confFile the settings file read, or null when running on embedded defaults
 * @param dataDir absolute data directory
 * @param listenAddress address every listener binds to
 * @param metricsPort HTTP port for /metrics and /status (0 = any free port)
 * @param pidFile where to write the pid once ready, or null
 */
public record OsdSettings(
    Path confFile, Path dataDir, InetAddress listenAddress, int metricsPort, Path pidFile) {

  /** The Prometheus exporter port of Ceph's mgr module, so dashboards find us where they look. */
  public static final int DEFAULT_METRICS_PORT = 9283;
}
