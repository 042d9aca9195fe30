package io.tidestore.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.function.Predicate;

/** The daemon's {@code /status} JSON, and waits on it. */
final class Status {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Status() {}

  static JsonNode get(int metricsPort) throws Exception {
    return JSON.readTree(OsdProcess.httpGet(metricsPort, "/status"));
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
      Thread.onSpinWait();
      status = get(metricsPort);
    }
    return status;
  }
}
