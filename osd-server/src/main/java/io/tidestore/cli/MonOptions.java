package io.tidestore.cli;

import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --mon H:P[,H:P...]} of the cluster's client commands, accepted after the subcommand;
 * without it, the environment's {@code TIDESTORE_MON}; and the certificates that make them speak
 * TLS to the monitors.
 */
final class MonOptions {
  @Option(
      names = "--mon",
      paramLabel = "H:P[,H:P...]",
      description = "The monitors. Default: $TIDESTORE_MON.")
  String mon;

  /** {@code --tls-certificates DIR} or {@code TIDESTORE_TLS_CERTIFICATES}, as for the OSD's. */
  @Mixin ClientTlsOptions tls = new ClientTlsOptions();

  List<InetSocketAddress> addresses(CommandSpec spec) {
    String list = mon != null ? mon : System.getenv(MonAddresses.ENV);
    if (list == null || list.isBlank()) {
      throw new ParameterException(
          spec.commandLine(), "name the monitors: --mon H:P[,H:P...] or TIDESTORE_MON=H:P");
    }
    try {
      return MonAddresses.parse(list);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--mon': " + e.getMessage());
    }
  }

  /**
   * A client of those monitors, over TLS when {@code --tls-certificates} or its environment
   * variable names certificates; a request fails after 30 s without a monitor answering.
   *
   * @throws IOException when the certificates cannot be used
   */
  MonClient client(CommandSpec spec) throws IOException {
    List<InetSocketAddress> monitors = addresses(spec);
    Path certificates = tls.directory();
    LinkSecurity links =
        certificates == null ? LinkSecurity.PLAINTEXT : TlsLinks.client(certificates);
    return new MonClient(monitors, links, Duration.ofSeconds(30));
  }
}
