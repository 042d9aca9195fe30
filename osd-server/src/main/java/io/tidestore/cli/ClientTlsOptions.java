package io.tidestore.cli;

import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsProvider;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * {@code --tls-certificates DIR} of the commands that talk to a daemon, in libnbd's layout ({@code
 * ca-cert.pem}, {@code client-cert.pem}, {@code client-key.pem}; {@code tidestore tls init} writes
 * one per client under {@code DIR/clients/NAME}), or {@code $TIDESTORE_TLS_CERTIFICATES}: with
 * either, the command speaks TLS and checks that the daemon's certificate names the host dialed.
 */
final class ClientTlsOptions {
  /** The environment variable read when the flag is absent. */
  static final String ENV = "TIDESTORE_TLS_CERTIFICATES";

  @Option(
      names = "--tls-certificates",
      paramLabel = "DIR",
      description =
          "Speak TLS with the certificates in DIR: ca-cert.pem, client-cert.pem, client-key.pem"
              + " (libnbd's layout; tidestore tls init writes DIR/clients/NAME). Default:"
              + " $"
              + ENV
              + ", else plaintext.")
  Path certificates;

  /** The directory given by the flag or the environment; null for plaintext. */
  Path directory() {
    if (certificates != null) {
      return certificates;
    }
    String env = System.getenv(ENV);
    return env == null || env.isBlank() ? null : Path.of(env);
  }

  /** The Netty client context for the object protocol, or null for plaintext. */
  SslContext objectProtocol() throws IOException {
    Path dir = directory();
    return dir == null
        ? null
        : TlsContexts.client(CertificateFiles.client(dir), TlsProvider.AUTO.netty());
  }

  /** The JDK context for HTTPS, or null for plain HTTP. */
  SSLContext http() throws IOException {
    Path dir = directory();
    return dir == null ? null : TlsContexts.jdkClient(CertificateFiles.client(dir));
  }
}
