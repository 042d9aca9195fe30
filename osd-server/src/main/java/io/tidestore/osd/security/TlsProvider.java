package io.tidestore.osd.security;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * Which TLS implementation carries the daemon's connections: the JDK's, or BoringSSL through
 * netty-tcnative when it is on the classpath and loads. {@code auto} takes BoringSSL when it can.
 */
public enum TlsProvider {
  AUTO,
  JDK,
  OPENSSL;

  public static TlsProvider parse(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "auto" -> AUTO;
      case "jdk" -> JDK;
      case "openssl", "boringssl" -> OPENSSL;
      default ->
          throw new IllegalArgumentException(
              "--tls-provider must be auto, jdk or openssl, got '" + text + "'");
    };
  }

  /** Netty's provider for this choice; OPENSSL fails with the reason when BoringSSL is absent. */
  public SslProvider netty() {
    return switch (this) {
      case JDK -> SslProvider.JDK;
      case OPENSSL -> {
        if (!OpenSsl.isAvailable()) {
          throw new IllegalStateException(
              "--tls-provider openssl: BoringSSL (netty-tcnative) is unavailable: "
                  + OpenSsl.unavailabilityCause());
        }
        yield SslProvider.OPENSSL;
      }
      case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    };
  }
}
