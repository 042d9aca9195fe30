package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.osd.security.Refusal;
import io.tidestore.osd.security.SecurityCounters;

/**
 * What the listeners refused: {@code tidestore_tls_handshake_failures_total} (every listener) and
 * {@code tidestore_ops_refused_total{reason}} (requests the grants did not allow), read from the
 * gateways' {@link SecurityCounters} when scraped. Every reason is registered up front, so a
 * dashboard sees zeros rather than absent series.
 */
public final class SecurityMetrics {
  private SecurityMetrics() {}

  /** {@code counters} must stay reachable for as long as the registry (the daemon holds it). */
  public static void bind(MeterRegistry registry, SecurityCounters counters) {
    FunctionCounter.builder(
            "tidestore.tls.handshake.failures", counters, SecurityCounters::handshakeFailures)
        .description(
            "TLS handshakes that failed: plaintext or garbage to a TLS port, a client certificate"
                + " missing, expired or of another CA, a timeout")
        .register(registry);
    for (Refusal why : Refusal.values()) {
      FunctionCounter.builder("tidestore.ops.refused", counters, c -> c.refusedFor(why))
          .description("Requests refused by the grants of --auth-file (EPERM, HTTP 403), by reason")
          .tag("reason", why.label())
          .register(registry);
    }
  }
}
