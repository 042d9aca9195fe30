package io.tidestore.cli;

import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.mon.MonDaemon;
import io.tidestore.mon.MonSettings;
import io.tidestore.osd.security.ListenPolicy;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsMode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code tidestore mon}: one monitor of the cluster, in the foreground. */
@Command(
    name = "mon",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Run a cluster monitor in the foreground: 1 or 3 (any odd number) monitors keep the cluster"
          + " map with Apache Ratis, register OSDs, mark them down and out, and push every new map"
          + " to subscribers. SIGTERM or SIGINT stops it cleanly."
    },
    sortOptions = false)
final class MonCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Where the Raft log and map snapshots live. Default: var/mon.ID.")
  Path data;

  @Option(
      names = "--id",
      paramLabel = "ID",
      description = "This monitor's id. Default: ${DEFAULT-VALUE}.")
  String id = "a";

  @Option(
      names = "--listen",
      paramLabel = "H:P",
      description =
          "Monitor protocol address; Raft between monitors uses port P+1. Default: this monitor's"
              + " --peers entry, else 127.0.0.1:6789.")
  String listen;

  @Option(
      names = "--peers",
      paramLabel = "ID=H:P,...",
      description =
          "Every monitor of the group, this one included (the same list on each). Default: this"
              + " monitor alone.")
  String peers;

  @Option(
      names = "--osd-heartbeat-grace",
      paramLabel = "DURATION",
      converter = DurationOption.class,
      description = "Mark an OSD down after this long without heartbeats. Default: 6s.")
  Duration grace = Duration.ofSeconds(6);

  @Option(
      names = "--mon-osd-down-out-interval",
      paramLabel = "DURATION",
      converter = DurationOption.class,
      description = "Mark an OSD out after this long down. Default: 10m.")
  Duration downOut = Duration.ofMinutes(10);

  @Option(
      names = "--failure-domain",
      paramLabel = "osd|host",
      description =
          "Failure domain of pool rbd (created on the cluster's first start) and of pools created"
              + " without one. Default: ${DEFAULT-VALUE}.")
  String failureDomain = "host";

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Admin HTTP port (/metrics, /status); 0 picks a free one. Default: ${DEFAULT-VALUE}.")
  int metricsPort = MonSettings.DEFAULT_METRICS_PORT;

  @Option(
      names = "--snapshot-threshold",
      paramLabel = "N",
      description =
          "Log entries between map snapshots; the log is purged up to each. Default: ${DEFAULT-VALUE}.")
  long snapshotThreshold = 1000;

  @Option(
      names = "--pid-file",
      paramLabel = "FILE",
      description = "Write the monitor's pid here once it is ready; removed on a clean stop.")
  Path pidFile;

  @Mixin TlsOptions tlsOptions = new TlsOptions();

  @Override
  public Integer call() throws Exception {
    MonSettings settings = settings();
    try (MonDaemon daemon = MonDaemon.start(settings)) {
      daemon.awaitShutdownSignal();
    } catch (java.io.IOException e) {
      spec.commandLine().getErr().println("tidestore mon: cannot start: " + IoErrors.describe(e));
      return 1;
    }
    return 0;
  }

  private MonSettings settings() {
    List<MonMessages.Peer> group = new ArrayList<>();
    InetSocketAddress own = null;
    try {
      if (peers != null) {
        Set<String> ids = new HashSet<>();
        for (String item : peers.split(",")) {
          int eq = item.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("'" + item + "' is not ID=H:P");
          }
          String peerId = item.substring(0, eq).trim();
          InetSocketAddress address = MonAddresses.parseOne(item.substring(eq + 1).trim());
          if (!ids.add(peerId)) {
            throw new IllegalArgumentException("monitor id '" + peerId + "' appears twice");
          }
          group.add(new MonMessages.Peer(peerId, MonAddresses.format(address)));
          if (peerId.equals(id)) {
            own = address;
          }
        }
        if (own == null) {
          throw new IllegalArgumentException("--id " + id + " is not one of --peers " + peers);
        }
        if (group.size() % 2 == 0) {
          throw new IllegalArgumentException(
              group.size()
                  + " monitors: use an odd number (an even one tolerates no more failures than one"
                  + " fewer)");
        }
      }
      InetSocketAddress listenAddress =
          listen != null
              ? MonAddresses.parseOne(listen)
              : own != null ? own : MonAddresses.parseOne("127.0.0.1:6789");
      if (own != null && !own.equals(listenAddress)) {
        throw new IllegalArgumentException(
            "--listen "
                + listen
                + " differs from this monitor's --peers entry "
                + MonAddresses.format(own));
      }
      if (listenAddress.isUnresolved()) {
        throw new IllegalArgumentException("unknown host in " + MonAddresses.format(listenAddress));
      }
      if (group.isEmpty()) {
        group.add(new MonMessages.Peer(id, MonAddresses.format(listenAddress)));
      }
      if (!id.matches("[A-Za-z0-9_-]{1,32}")) {
        throw new IllegalArgumentException("--id '" + id + "' must be 1-32 of A-Z a-z 0-9 _ -");
      }
      SecuritySettings security = tlsOptions.settings();
      refuseExposure(listenAddress, group, security);
      if (grace.toMillis() < 1000) {
        throw new IllegalArgumentException(
            "--osd-heartbeat-grace must be 1s or more (OSDs beat every 1 s)");
      }
      if (snapshotThreshold < 1) {
        throw new IllegalArgumentException("--snapshot-threshold must be 1 or more");
      }
      if (metricsPort < 0 || metricsPort > 65535) {
        throw new IllegalArgumentException("--metrics-port " + metricsPort + " is not a port");
      }
      return new MonSettings(
          id,
          (data != null ? data : Path.of("var", "mon." + id)).toAbsolutePath().normalize(),
          listenAddress,
          group,
          grace,
          downOut,
          FailureDomain.parse(failureDomain),
          metricsPort,
          pidFile == null ? null : pidFile.toAbsolutePath(),
          snapshotThreshold,
          security);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /**
   * The OSD's rule for leaving loopback ({@link ListenPolicy}) on the monitor protocol and the
   * admin HTTP, and one of the monitor's own: Raft between monitors is mutual TLS under {@code
   * --tls on|require} and plaintext under {@code --tls off}, so a group whose peers are not all on
   * loopback needs TLS or {@code --insecure}. A lone monitor keeps Raft on loopback.
   */
  private static void refuseExposure(
      InetSocketAddress listen, List<MonMessages.Peer> group, SecuritySettings security) {
    String refusal = ListenPolicy.refusal(listen.getAddress(), security);
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    if (group.size() < 2 || security.insecure() || security.tls() != TlsMode.OFF) {
      return;
    }
    for (MonMessages.Peer peer : group) {
      InetSocketAddress address = MonAddresses.parseOne(peer.address());
      if (address.isUnresolved() || !address.getAddress().isLoopbackAddress()) {
        throw new IllegalArgumentException(
            "--peers "
                + peer.id()
                + "="
                + peer.address()
                + " is not loopback, and Raft between monitors (each one's port + 1) is plaintext"
                + " without TLS, so anyone who can reach it could change the cluster map: add"
                + " --tls require --tls-verify-peer --tls-certificates DIR (Raft is then mutual"
                + " TLS), or --insecure if the network between the monitors is trusted");
      }
    }
  }
}
