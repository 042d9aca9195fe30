package io.tidestore.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.DoublePredicate;

/** Reads the daemon's Prometheus text. */
final class Scrape {
  private Scrape() {}

  static String metrics(int port) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionError("GET /metrics: HTTP " + response.statusCode());
      }
      return response.body();
    }
  }

  /**
   * The sum of every sample whose series starts with {@code series}: a metric name (all its label
   * sets) or a name with the start of its labels, as in {@code name{op="read"}.
   */
  static double sum(String text, String series) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(series)
          && (series.endsWith("\"") || " {".indexOf(line.charAt(series.length())) >= 0)) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /**
   * Scrapes until {@code series} sums to {@code expected} and returns that scrape, or throws after
   * 10 s with the last one. Store meters come from shard snapshots up to a second old
   * (ShardStatsSampler), so a change shows in /status at once and in /metrics within that second.
   */
  static String awaitSum(int port, String series, double expected) throws Exception {
    return awaitSum(port, series, sum -> sum == expected, "" + expected);
  }

  /** As {@link #awaitSum(int, String, double)}, until the sum is at least {@code least}. */
  static String awaitSumAtLeast(int port, String series, double least) throws Exception {
    return awaitSum(port, series, sum -> sum >= least, "at least " + least);
  }

  private static String awaitSum(int port, String series, DoublePredicate until, String what)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      String text = metrics(port);
      if (until.test(sum(text, series))) {
        return text;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(series + " never summed to " + what + ":\n" + text);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // the snapshot's age, not an event
    }
  }
}
