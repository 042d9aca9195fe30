package io.tidestore.osd.security;

import java.util.Locale;

/**
 * Whether a listener speaks TLS, with nbdkit's words: {@code off} never, {@code on} when the client
 * asks (NBD's STARTTLS; a TLS ClientHello on the other protocols), {@code require} always: a client
 * that does not start TLS is refused before it can reach the store.
 */
public enum TlsMode {
  OFF,
  ON,
  REQUIRE;

  /** Parses {@code off}, {@code on} or {@code require} (any case). */
  public static TlsMode parse(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "off", "false", "no" -> OFF;
      case "on", "true", "yes" -> ON;
      case "require", "required" -> REQUIRE;
      default ->
          throw new IllegalArgumentException(
              "--tls must be off, on or require, got '" + text + "'");
    };
  }

  /** The flag's spelling. */
  public String flag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
