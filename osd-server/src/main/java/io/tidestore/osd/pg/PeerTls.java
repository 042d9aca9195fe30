package io.tidestore.osd.pg;

import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsMode;
import java.io.IOException;

/**
 * The TLS of an OSD's links to the other OSDs: none when its own listeners have none, else TLS 1.3
 * by the provider of its listeners ({@code --tls-provider}), presenting its server certificate as
 * its client certificate, as its links to the monitors do ({@code tls init} issues it for both
 * purposes; with an auth file its name needs {@code *}).
 */
public final class PeerTls {
  private PeerTls() {}

  public static SslContext context(SecuritySettings settings) throws IOException {
    if (settings.tls() == TlsMode.OFF) {
      return null;
    }
    try {
      return TlsContexts.client(
          CertificateFiles.server(settings.certificates()), settings.provider().netty());
    } catch (IllegalStateException e) { // --tls-provider openssl without BoringSSL
      throw new IOException(e.getMessage(), e);
    }
  }
}
