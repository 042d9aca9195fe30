package io.tidestore.cli;

import io.tidestore.client.ClusterClient;
import io.tidestore.client.ClusterObjectOps;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.osd.ShutdownSignal;
import io.tidestore.osd.image.ImageCatalog;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.nbd.NbdServer;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.pg.PeerTls;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.osd.security.ListenPolicy;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.ServerSecurity;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore nbd --mon H:P [--pool rbd] [--nbd-port 10809]}: an NBD gateway exporting a
 * cluster pool's images (rbd-nbd's role). Its images are those of {@code image create --mon}; their
 * objects go to the PGs' primaries and follow the map ({@link ClusterClient}): during a failover an
 * op waits and is sent again, as librbd does, for up to {@code --op-timeout}, so an NBD client sees
 * no error while the PG can regain min_size.
 */
@Command(
    name = "nbd",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "An NBD gateway for a cluster pool's images (rbd-nbd's role): fio, qemu and nbd-client"
            + " use it like the standalone daemon's NBD port.")
final class NbdGatewayCommand implements Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(NbdGatewayCommand.class.getName());

  @Spec CommandSpec spec;

  @Option(
      names = "--mon",
      paramLabel = "H:P[,H:P...]",
      description = "The monitors. Default: $TIDESTORE_MON.")
  String mon;

  @Option(names = "--pool", paramLabel = "NAME", description = "Default: ${DEFAULT-VALUE}.")
  String pool = "rbd";

  @Option(
      names = "--listen",
      paramLabel = "ADDRESS",
      description = "Address the NBD port binds to. Default: ${DEFAULT-VALUE} (loopback only).")
  String listen = "127.0.0.1";

  @Option(
      names = "--nbd-port",
      paramLabel = "PORT",
      description = "NBD port (0: a free one). Default: ${DEFAULT-VALUE}.")
  int nbdPort = 10809;

  @Option(
      names = "--reactors",
      paramLabel = "N",
      description = "Event loops serving NBD connections. Default: ${DEFAULT-VALUE}.")
  int reactors = 1;

  @Option(
      names = "--op-timeout",
      paramLabel = "DURATION",
      converter = DurationOption.class,
      description =
          "How long an object op keeps being sent again before the NBD request fails (a PG"
              + " below min_size for longer). Default: 15m.")
  Duration opTimeout = Duration.ofMinutes(15);

  @Option(
      names = "--default-image",
      paramLabel = "NAME",
      description = "The image an NBD client that names none gets (none by default).")
  String defaultImage;

  @Mixin TlsOptions tlsOptions = new TlsOptions();

  @Override
  public Integer call() throws Exception {
    SecuritySettings settings;
    InetAddress address;
    try {
      settings = tlsOptions.settings();
      address = InetAddress.getByName(listen);
    } catch (IllegalArgumentException | java.net.UnknownHostException e) {
      spec.commandLine().getErr().println("tidestore nbd: " + e.getMessage());
      return 2;
    }
    String refusal = ListenPolicy.refusal(address, settings);
    if (refusal != null) {
      spec.commandLine().getErr().println("tidestore nbd: " + refusal);
      return 2;
    }
    String monitors = mon != null ? mon : System.getenv(MonAddresses.ENV);
    if (monitors == null || monitors.isBlank()) {
      spec.commandLine()
          .getErr()
          .println("tidestore nbd: name the monitors: --mon H:P or TIDESTORE_MON");
      return 2;
    }
    ShutdownSignal stop = new ShutdownSignal();
    // Like an OSD, the gateway reaches monitors and OSDs with its own certificate when its
    // listener has TLS.
    try (ClusterClient client =
            ClusterClient.connect(
                MonAddresses.parse(monitors),
                TlsLinks.osd(settings),
                PeerTls.context(settings),
                opTimeout);
        Reactors loops = Reactors.start(Transport.EPOLL, unpinned(reactors), Optional.empty());
        NbdServer nbd =
            NbdServer.start(
                loops,
                address,
                nbdPort,
                new ImageCatalog(new ClusterObjectOps(client, pool), null, defaultImage),
                NbdServer.Limits.DEFAULT,
                OpLatencies.NONE,
                new InboundBudget(InboundBudget.DEFAULT_BYTES),
                ServerSecurity.open(settings))) {
      LOG.info(
          "tidestore nbd gateway ready: pool "
              + pool
              + " of the cluster at map epoch "
              + client.map().epoch()
              + ", NBD on "
              + address.getHostAddress()
              + " nbd="
              + nbd.address().getPort());
      stop.await();
      return 0;
    }
  }

  private static int[] unpinned(int n) {
    int[] cpus = new int[Math.max(1, n)];
    Arrays.fill(cpus, io.tidestore.osd.cpu.CpuAllocator.UNPINNED);
    return cpus;
  }
}
