package io.tidestore.cli;

import io.tidestore.osd.OsdSettings;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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
    description = "Ask a running daemon: status, dump_metrics, cache-policy set lru|2q.",
    subcommands = {
      AdminCommand.Status.class,
      AdminCommand.DumpMetrics.class,
      AdminCommand.CachePolicy.class
    })
final class AdminCommand {
  @Option(
      names = "--http",
      paramLabel = "HOST:PORT",
      description = "The daemon's metrics/admin HTTP address. Default: ${DEFAULT-VALUE}.")
  String http = "127.0.0.1:" + OsdSettings.DEFAULT_METRICS_PORT;

  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    try (HttpClient client =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      return client.send(
          request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  URI uri(String path) {
    return URI.create("http://" + http + path);
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
      return print(spec, admin.send(HttpRequest.newBuilder(admin.uri("/status"))));
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
      return print(
          spec,
          admin.send(
              HttpRequest.newBuilder(
                  admin.uri(
                      "/dump_metrics?prefix="
                          + URLEncoder.encode(prefix, StandardCharsets.UTF_8)))));
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
      return print(
          spec,
          admin.send(
              HttpRequest.newBuilder(admin.uri("/admin/cache-policy?policy=" + policy))
                  .POST(HttpRequest.BodyPublishers.noBody())));
    }
  }
}
