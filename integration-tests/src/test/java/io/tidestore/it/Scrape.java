package io.tidestore.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

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
}
