package io.tidestore.osd.security;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * TLS failures in one line an operator can act on, for the daemon's log and the clients' errors:
 * JSSE and BoringSSL wrap the reason (an expired certificate, an unknown CA, no certificate at all)
 * in layers of exceptions whose messages say little; this finds the reason. Stateless.
 */
public final class TlsErrors {
  private static final int MAX_MESSAGE = 200;

  private TlsErrors() {}

  /** Whether {@code failure} (or a cause of it) is a TLS failure. */
  public static boolean isTls(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  /** One line saying why the handshake or the TLS connection failed. */
  public static String describe(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      switch (t) {
        case NotSslRecordException e -> {
          return "the peer did not start TLS (plaintext, or garbage)";
        }
        case SslHandshakeTimeoutException e -> {
          return "no complete TLS handshake in time (" + e.getMessage() + ")";
        }
        case CertificateExpiredException e -> {
          return "the certificate has expired (" + e.getMessage() + ")";
        }
        case CertificateNotYetValidException e -> {
          return "the certificate is not valid yet (" + e.getMessage() + ")";
        }
        case ClosedChannelException e -> {
          return "the connection closed during the TLS handshake";
        }
        default -> {}
      }
      if (t.getMessage() != null) {
        messages.append(t.getMessage()).append('\n');
      }
    }
    String all = messages.toString();
    String lower = all.toLowerCase(Locale.ROOT);
    if (lower.contains("empty client certificate chain")
        || lower.contains("peer_did_not_return_a_certificate")
        || lower.contains("certificate_required")) {
      return "no client certificate (the daemon requires one: --tls-verify-peer)";
    }
    if (lower.contains("unable to find valid certification path")
        || lower.contains("pkix path building failed")
        || lower.contains("does not chain with any of the trust anchors")
        || lower.contains("unknown_ca")) {
      return "the certificate is not signed by the expected CA (" + firstLine(all) + ")";
    }
    if (lower.contains("no subject alternative") || lower.contains("no name matching")) {
      return "the server's certificate does not name the host dialed (" + firstLine(all) + ")";
    }
    if (lower.contains("closed while ssl/tls handshake")
        || lower.contains("connection closed while")) {
      return "the connection closed during the TLS handshake";
    }
    int alert = lower.indexOf("received fatal alert: ");
    if (alert >= 0) {
      return "the peer refused the TLS session: "
          + firstLine(all.substring(alert + "received fatal alert: ".length()));
    }
    return failure.getClass().getSimpleName() + ": " + firstLine(deepestMessage(failure));
  }

  private static String deepestMessage(Throwable failure) {
    String message = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message == null ? "(no message)" : message;
  }

  private static String firstLine(String text) {
    int nl = text.indexOf('\n');
    String line = (nl >= 0 ? text.substring(0, nl) : text).strip();
    return line.length() > MAX_MESSAGE ? line.substring(0, MAX_MESSAGE) + "..." : line;
  }
}
