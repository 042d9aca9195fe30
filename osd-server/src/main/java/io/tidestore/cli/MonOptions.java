package io.tidestore.cli;

import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.wire.LinkSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --mon H:P[,H:P...]} of the cluster's client commands, accepted after the subcommand;
 * without it, the environment's {@code TIDESTORE_MON}.
 */
final class MonOptions {
  @Option(
      names = "--mon",
      paramLabel = "H:P[,H:P...]",
      description = "The monitors. Default: $TIDESTORE_MON.")
  String mon;

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

  /** A client of those monitors; a request fails after 30 s without a monitor answering. */
  MonClient client(CommandSpec spec) {
    return new MonClient(addresses(spec), LinkSecurity.PLAINTEXT, Duration.ofSeconds(30));
  }
}
