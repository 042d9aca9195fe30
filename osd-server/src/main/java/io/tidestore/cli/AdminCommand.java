package io.tidestore.cli;

import io.tidestore.osd.OsdSettings;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsErrors;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore admin}: talks to a running daemon's admin HTTP endpoint (the metrics port), like
 * Ceph's {@code ceph daemon osd.N ...} does through the admin socket.
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Ask a running daemon: status, dump_metrics, cache-policy set lru|2q, scrub.",
      "With --tls-certificates DIR (or $TIDESTORE_TLS_CERTIFICATES) it speaks HTTPS with that"
          + " client certificate, as a daemon with --tls require or off loopback wants."
    },
    subcommands = {
      AdminCommand.Status.class,
      AdminCommand.DumpMetrics.class,
      AdminCommand.CachePolicy.class,
      AdminCommand.Scrub.class
    })
final class AdminCommand {
  @Option(
      names = "--http",
      paramLabel = "HOST:PORT",
      description = "The daemon's metrics/admin HTTP address. Default: ${DEFAULT-VALUE}.")
  String http = "127.0.0.1:" + OsdSettings.DEFAULT_METRICS_PORT;

  @Mixin ClientTlsOptions tls = new ClientTlsOptions();

  /** HTTPS with the client's certificate when --tls-certificates (or the env) names one. */
  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    SSLContext context = tls.http();
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (context != null) {
      builder
          .sslContext(context)
          .sslParameters(new SSLParameters(null, new String[] {TlsContexts.PROTOCOL}));
    }
    try (HttpClient client = builder.build()) {
      return client.send(
          request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  URI uri(String path) {
    return URI.create((tls.directory() != null ? "https://" : "http://") + http + path);
  }

  /**
   * Sends {@code request} and prints the answer: exit 0 on HTTP 200, else 1 with the daemon's
   * error, or why it could not be reached, on stderr.
   */
  int ask(CommandSpec spec, HttpRequest.Builder request) throws InterruptedException {
    HttpResponse<String> response;
    try {
      response = send(request);
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println(
              "tidestore admin: cannot ask the daemon at "
                  + http
                  + ": "
                  + (TlsErrors.isTls(e) ? TlsErrors.describe(e) : String.valueOf(e.getMessage()))
                  + (tls.directory() == null
                      ? " (a daemon with --tls require speaks HTTPS only: give --tls-certificates"
                          + " DIR or $TIDESTORE_TLS_CERTIFICATES)"
                      : ""));
      return 1;
    }
    return print(spec, response);
  }

  /** Prints the body; exit 0 on HTTP 200, else 1 with the daemon's error on stderr. */
  static int print(CommandSpec spec, HttpResponse<String> response) {
    if (response.statusCode() == 200) {
      spec.commandLine().getOut().println(response.body().strip());
      return 0;
    }
    spec.commandLine()
        .getErr()
        .println("tidestore admin: HTTP " + response.statusCode() + ": " + response.body().strip());
    return 1;
  }

  /** {@code admin status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "ONE daemon's own status (its admin HTTP /status); the cluster's is `tidestore status`.")
  static final class Status implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return admin.ask(spec, HttpRequest.newBuilder(admin.uri("/status")));
    }
  }

  /** {@code admin dump_metrics [PREFIX]}: the daemon's metrics as JSON (docs/metrics.md). */
  @Command(
      name = "dump_metrics",
      mixinStandardHelpOptions = true,
      description = "Every metric (or those whose name starts with PREFIX) as JSON.")
  static final class DumpMetrics implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Spec CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "PREFIX", description = "Metric name prefix.")
    String prefix = "";

    @Override
    public Integer call() throws Exception {
      return admin.ask(
          spec,
          HttpRequest.newBuilder(
              admin.uri(
                  "/dump_metrics?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8))));
    }
  }

  /** {@code admin cache-policy set lru|2q}. */
  @Command(
      name = "cache-policy",
      mixinStandardHelpOptions = true,
      description = "Switch every shard's extent cache to another policy; cached data stays valid.")
  static final class CachePolicy implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "set", description = "The word 'set'.")
    String verb;

    @Parameters(index = "1", paramLabel = "lru|2q", description = "The new policy.")
    String policy;

    @Override
    public Integer call() throws Exception {
      if (!"set".equals(verb)) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "usage: tidestore admin cache-policy set lru|2q");
      }
      return admin.ask(
          spec,
          HttpRequest.newBuilder(admin.uri("/admin/cache-policy?policy=" + policy))
              .POST(HttpRequest.BodyPublishers.noBody()));
    }
  }

  /** {@code admin scrub}: POST /scrub (docs/reliability.md "Scrub"). */
  @Command(
      name = "scrub",
      mixinStandardHelpOptions = true,
      description =
          "Start a scrub pass on every shard now (progress and findings in `admin status`).")
  static final class Scrub implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return admin.ask(
          spec,
          HttpRequest.newBuilder(admin.uri("/scrub")).POST(HttpRequest.BodyPublishers.noBody()));
    }
  }
}
