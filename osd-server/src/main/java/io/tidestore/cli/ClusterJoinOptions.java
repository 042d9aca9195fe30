package io.tidestore.cli;

import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.cluster.ClusterSettings;
import io.tidestore.osd.security.SecuritySettings;
import java.io.IOException;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The flags that make {@code tidestore osd} join a cluster (docs/cluster.md). */
final class ClusterJoinOptions {
  @Option(
      names = "--mon",
      paramLabel = "H:P[,H:P...]",
      description =
          "Join the cluster of these monitors: register (the id is allocated once and kept in the"
              + " data directory), heartbeat them and follow the map; serve no NBD (--nbd-port is"
              + " ignored). Without it the daemon is standalone, as always.")
  String mon;

  @Option(
      names = "--id",
      paramLabel = "N",
      description =
          "With --mon: this OSD's id, e.g. to bring a wiped OSD back under its old id. Default:"
              + " the id in the data directory, else one the monitors allocate.")
  int id = -1;

  @Option(
      names = "--host",
      paramLabel = "NAME",
      description =
          "With --mon: the host label (failure domain 'host'). Default: this machine's hostname.")
  String host;

  @Option(
      names = "--weight",
      paramLabel = "W",
      description = "With --mon: this OSD's share of the data relative to others. Default: 1.0.")
  double weight = 1.0;

  @Option(
      names = "--deep-scrub-interval",
      paramLabel = "DURATION",
      description =
          "With --mon: how often this OSD deep-scrubs each PG it is the primary of, comparing"
              + " every object's copies block by block and repairing bad ones (e.g. 7d, 12h, 30m;"
              + " 0 = only on `tidestore pg deep-scrub`). Default: ${DEFAULT-VALUE}.")
  String deepScrubInterval = "7d";

  @Option(
      names = {"--recovery-max-active", "--osd-recovery-max-active"},
      paramLabel = "N",
      description =
          "With --mon: how many PGs this OSD recovers at once while they serve; the others wait"
              + " their turn (Ceph's osd_recovery_max_active). Default: ${DEFAULT-VALUE}.")
  int recoveryMaxActive = ClusterSettings.DEFAULT_RECOVERY_MAX_ACTIVE;

  @Option(
      names = {"--recovery-sleep", "--osd-recovery-sleep"},
      paramLabel = "DURATION",
      converter = DurationOption.class,
      defaultValue = "0.25",
      description =
          "With --mon: the pause for each MiB a recovery moves while its PG serves, so that"
              + " clients keep most of the OSD (Ceph's osd_recovery_sleep, here per MiB; e.g."
              + " 0.25, 100ms, 0 for none; the default keeps a client on this project's 2-core"
              + " benchmark machine at 0.6-0.9x meanwhile, docs/benchmarks.md). Recovery of a PG"
              + " whose ops wait never pauses."
              + " Default: ${DEFAULT-VALUE}.")
  Duration recoverySleep;

  /**
   * Null for a standalone daemon (no --mon). Its links are plaintext: {@link #withTls} lays the
   * daemon's TLS over them.
   */
  ClusterSettings settings(CommandSpec spec) {
    if (mon == null) {
      if (id != -1 || host != null) {
        throw new ParameterException(spec.commandLine(), "--id and --host need --mon");
      }
      return null;
    }
    if (id < -1 || id >= 1_000_000) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--id': " + id + " (0-999999)");
    }
    if (recoveryMaxActive < 1 || recoveryMaxActive > ClusterSettings.MAX_RECOVERY_ACTIVE) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--recovery-max-active': "
              + recoveryMaxActive
              + " (1-"
              + ClusterSettings.MAX_RECOVERY_ACTIVE
              + ")");
    }
    if (recoverySleep.compareTo(ClusterSettings.MAX_RECOVERY_SLEEP) > 0) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--recovery-sleep': at most "
              + ClusterSettings.MAX_RECOVERY_SLEEP.toSeconds()
              + "s");
    }
    if (!(weight >= 0) || weight > 1e6) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--weight': " + weight + " (0 to 1e6)");
    }
    try {
      return new ClusterSettings(
          MonAddresses.parse(mon),
          id,
          host != null ? host : HostName.local(),
          weight,
          ClusterSettings.DEFAULT_HEARTBEAT_INTERVAL,
          LinkSecurity.PLAINTEXT,
          Duration.ofNanos(ScrubOptions.durationNanos(deepScrubInterval, "--deep-scrub-interval")),
          recoveryMaxActive,
          recoverySleep);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          e.getMessage().startsWith("Invalid value")
              ? e.getMessage()
              : "Invalid value for option '--mon': " + e.getMessage());
    }
  }

  /**
   * {@code cluster} (null: standalone) reaching its monitors with the daemon's TLS ({@code --tls
   * on|require} with its certificates: it presents its server certificate as a client); fails when
   * the certificates cannot be used.
   */
  static ClusterSettings withTls(ClusterSettings cluster, SecuritySettings security)
      throws IOException {
    return cluster == null ? null : cluster.withLinks(TlsLinks.osd(security));
  }
}
