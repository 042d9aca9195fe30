package io.tidestore.osd.security;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * Netty TLS contexts from certificate files: TLS 1.3 only, peers verified against the one CA. A
 * server that verifies peers requires a client certificate signed by that CA; otherwise it asks for
 * one (so an identity is known when the client has one) but accepts a client without. Built once at
 * startup; a context is thread-safe and shared by every connection.
 */
public final class TlsContexts {
  /** The only protocol version offered: every client we target speaks it (libnbd, qemu, JDK). */
  public static final String PROTOCOL = "TLSv1.3";

  private TlsContexts() {}

  /** A server context from {@code files}; {@code verifyPeer} requires client certificates. */
  public static SslContext server(CertificateFiles files, boolean verifyPeer, SslProvider provider)
      throws IOException {
    try {
      return SslContextBuilder.forServer(files.certificate().toFile(), files.key().toFile())
          .trustManager(files.ca().toFile())
          .clientAuth(verifyPeer ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL)
          .protocols(PROTOCOL)
          .sslProvider(provider)
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException(
          "cannot use the server certificate "
              + files.certificate()
              + " with key "
              + files.key()
              + " and CA "
              + files.ca()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A client context from {@code files}: the server's certificate must be signed by the CA and name
   * the host the client connects to (give that host to {@code newHandler}); the client presents its
   * own certificate when it has one.
   */
  public static SslContext client(CertificateFiles files, SslProvider provider) throws IOException {
    try {
      SslContextBuilder b =
          SslContextBuilder.forClient()
              .trustManager(files.ca().toFile())
              .protocols(PROTOCOL)
              .sslProvider(provider)
              .endpointIdentificationAlgorithm("HTTPS");
      if (files.certificate() != null) {
        b.keyManager(files.certificate().toFile(), files.key().toFile());
      }
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException(
          "cannot use the client certificates " + files + ": " + e.getMessage(), e);
    }
  }

  /**
   * The JDK's {@link SSLContext} of {@link #server} (the JDK provider), for servers built on the
   * JDK's own sockets such as the monitor's. Whether client certificates are required is the
   * socket's setting ({@code SSLParameters.setNeedClientAuth}), not the context's.
   */
  public static SSLContext jdkServer(CertificateFiles files) throws IOException {
    return ((JdkSslContext) server(files, false, SslProvider.JDK)).context();
  }

  /**
   * The JDK's {@link SSLContext} of {@link #client} (the JDK provider), for clients built on the
   * JDK's own TLS such as {@code java.net.http.HttpClient}, which checks the host name itself.
   */
  public static SSLContext jdkClient(CertificateFiles files) throws IOException {
    return ((JdkSslContext) client(files, SslProvider.JDK)).context();
  }
}
