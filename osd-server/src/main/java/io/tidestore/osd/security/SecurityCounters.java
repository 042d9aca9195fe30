package io.tidestore.osd.security;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the listeners refused, for the metrics ({@code tidestore_tls_handshake_failures_total},
 * {@code tidestore_ops_refused_total{reason}}): counted by every gateway, from any thread, without
 * a lock or an allocation.
 */
public final class SecurityCounters {
  private final LongAdder handshakeFailures = new LongAdder();
  private final LongAdder[] refused = new LongAdder[Refusal.values().length];

  public SecurityCounters() {
    for (int i = 0; i < refused.length; i++) {
      refused[i] = new LongAdder();
    }
  }

  /** A TLS handshake failed (plaintext to a TLS port, a certificate refused, a timeout...). */
  public void handshakeFailed() {
    handshakeFailures.increment();
  }

  public long handshakeFailures() {
    return handshakeFailures.sum();
  }

  /** A request was refused for {@code why}. */
  public void refused(Refusal why) {
    refused[why.ordinal()].increment();
  }

  public long refusedFor(Refusal why) {
    return refused[why.ordinal()].sum();
  }
}
