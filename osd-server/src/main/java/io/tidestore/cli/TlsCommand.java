package io.tidestore.cli;

import io.tidestore.osd.security.TlsInit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tidestore tls}: certificates for TLS (the daemon's {@code --tls-certificates DIR}). */
@Command(
    name = "tls",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Certificates for the daemon's TLS listeners and its clients.",
    subcommands = {TlsCommand.Init.class})
final class TlsCommand {
  /** {@code tidestore tls init}. */
  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      versionProvider = VersionInfo.class,
      description = {
        "Create a CA, a server certificate and client certificates in DIR, in the layouts nbdkit"
            + " and libnbd use: DIR/{ca-cert,server-cert,server-key}.pem for the daemon"
            + " (--tls-certificates DIR), DIR/clients/NAME/{ca-cert,client-cert,client-key}.pem"
            + " for each client (nbds://...?tls-certificates=DIR/clients/NAME).",
        "An existing CA and server certificate are kept; named clients are (re)issued. The"
            + " client's NAME is its certificate's CN, the name --auth-file grants access to."
      })
  static final class Init implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", required = true, description = "Where to write.")
    Path dir;

    @Option(
        names = "--san",
        paramLabel = "NAME",
        split = ",",
        description =
            "Addresses and host names the server certificate is valid for. Default: 127.0.0.1,"
                + " localhost and this host's name.")
    List<String> sans = new ArrayList<>();

    @Option(
        names = "--client",
        paramLabel = "NAME",
        arity = "1..*",
        description = "Client certificates to issue, one per name.")
    List<String> clients = new ArrayList<>();

    @Option(
        names = "--days",
        paramLabel = "N",
        description = "Validity of the certificates in days (the CA: ten times). Default: 825.")
    int days = 825;

    @Override
    public Integer call() throws Exception {
      if (days < 1) {
        spec.commandLine().getErr().println("tidestore tls init: --days must be >= 1");
        return 2;
      }
      try {
        TlsInit.run(
            dir,
            sans.isEmpty() ? TlsInit.defaultSans() : sans,
            clients,
            Duration.ofDays(days),
            spec.commandLine().getOut()::println);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("tidestore tls init: " + e.getMessage());
        return 2;
      }
      return 0;
    }
  }
}
