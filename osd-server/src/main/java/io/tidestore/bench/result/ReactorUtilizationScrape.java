package io.tidestore.bench.result;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code tidestore_reactor_utilization} from a daemon's {@code /metrics}: the busy fraction
 * of each reactor's last second, as percent (so it shares the CPU-per-thread chart's axis, where
 * 100 is one core), keyed by the reactor's thread name. Where the reactor thread's CPU stands above
 * its utilization, the difference is polling with nothing to do ({@code --reactor-idle-poll-us}).
 */
public final class ReactorUtilizationScrape {
  private static final Pattern LINE =
      Pattern.compile(
          "^tidestore_reactor_utilization\\{[^}]*thread=\"([^\"]+)\"[^}]*\\}\\s+(\\S+)",
          Pattern.MULTILINE);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
  private final URI metrics;

  public ReactorUtilizationScrape(URI metrics) {
    this.metrics = metrics;
  }

  /** Percent busy per reactor thread; empty when the daemon exports none. */
  public Map<String, Double> scrape() throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(metrics).timeout(Duration.ofMillis(800)).GET().build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(metrics + " answered HTTP " + response.statusCode());
    }
    return parse(response.body());
  }

  /** The Prometheus text format's utilization lines, as percent per thread. */
  static Map<String, Double> parse(String text) {
    Map<String, Double> percent = new TreeMap<>();
    Matcher m = LINE.matcher(text);
    while (m.find()) {
      try {
        percent.put(m.group(1), Double.parseDouble(m.group(2)) * 100);
      } catch (NumberFormatException e) {
        // NaN spelled otherwise, or a malformed line: that reactor has no point this second.
      }
    }
    return percent;
  }
}
