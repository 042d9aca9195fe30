package io.tidestore.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/** The daemon's {@code /status} JSON, and waits on it. */
final class Status {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One client for every request (a client per request is a selector thread and a pool each). */
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** The pause between two looks of {@link #await}: the daemon's CPU is the waited-on work's. */
  private static final Duration POLL = Duration.ofMillis(100);

  private Status() {}

  static JsonNode get(int metricsPort) throws Exception {
    return JSON.readTree(
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/status"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }

  /** {@code /status}'s entry for {@code shard}. */
  static JsonNode shard(int metricsPort, int shard) throws Exception {
    return get(metricsPort).get("shards").get(shard);
  }

  /**
   * Polls {@code /status} until {@code until} holds (the daemon answers within milliseconds; this
   * waits for an event in the daemon, not for time to pass); fails after {@code timeout}.
   */
  static JsonNode await(int metricsPort, Predicate<JsonNode> until, Duration timeout, String what)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode status = get(metricsPort);
    while (!until.test(status)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what + "; status: " + status);
      }
      LockSupport.parkNanos(POLL.toNanos());
      status = get(metricsPort);
    }
    return status;
  }
}
