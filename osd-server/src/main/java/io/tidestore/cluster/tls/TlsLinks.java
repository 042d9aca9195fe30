package io.tidestore.cluster.tls;

import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.WireException;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.PeerIdentity;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsErrors;
import io.tidestore.osd.security.TlsMode;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Monitor links over the JDK's TLS 1.3 sockets, from the certificate files the OSD's listeners use
 * ({@link CertificateFiles}, contexts by {@link TlsContexts}). A monitor accepts TCP, looks at the
 * first byte, and lays TLS over the socket when it is a TLS handshake record; a plaintext client of
 * a TLS-only monitor, or a TLS client without a certificate when peers are verified, gets one ERROR
 * frame saying so (not a silent close). A client connects, checks that the monitor's certificate
 * names the host it dialed, and presents its own. Handshakes run on the link's thread, never the
 * acceptor's, with a deadline. Immutable and thread-safe.
 */
public final class TlsLinks implements LinkSecurity {
  /** A peer that has not finished its handshake by then is cut off. */
  private static final int HANDSHAKE_TIMEOUT_MILLIS = 10_000;

  /** The first byte of every TLS handshake record (a ClientHello starts with it). */
  private static final int TLS_HANDSHAKE_RECORD = 0x16;

  private final SSLContext context;
  private final TlsMode mode;
  private final boolean verifyPeer;

  private TlsLinks(SSLContext context, TlsMode mode, boolean verifyPeer) {
    this.context = context;
    this.mode = mode;
    this.verifyPeer = verifyPeer;
  }

  /**
   * A monitor's links as its {@code --tls} flags say: plaintext when TLS is off, else TLS with the
   * server certificate of {@code --tls-certificates}.
   */
  public static LinkSecurity monitor(SecuritySettings settings) throws IOException {
    if (settings.tls() == TlsMode.OFF) {
      return LinkSecurity.PLAINTEXT;
    }
    return new TlsLinks(
        TlsContexts.jdkServer(CertificateFiles.server(settings.certificates())),
        settings.tls(),
        settings.verifyPeer());
  }

  /**
   * An OSD's links to its monitors: TLS when its own listeners have TLS, presenting its server
   * certificate as its client certificate ({@code tls init} issues it for both purposes).
   */
  public static LinkSecurity osd(SecuritySettings settings) throws IOException {
    if (settings.tls() == TlsMode.OFF) {
      return LinkSecurity.PLAINTEXT;
    }
    CertificateFiles server = CertificateFiles.server(settings.certificates());
    return new TlsLinks(TlsContexts.jdkClient(server), TlsMode.REQUIRE, true);
  }

  /**
   * A client command's links ({@code --tls-certificates DIR} in libnbd's layout): TLS, presenting
   * {@code client-cert.pem} when DIR has one.
   */
  public static LinkSecurity client(Path dir) throws IOException {
    return new TlsLinks(TlsContexts.jdkClient(CertificateFiles.client(dir)), TlsMode.REQUIRE, true);
  }

  @Override
  public ServerSocket listen(InetSocketAddress address) throws IOException {
    return LinkSecurity.bind(address);
  }

  @Override
  public Accepted admit(Socket accepted) throws IOException {
    accepted.setSoTimeout(HANDSHAKE_TIMEOUT_MILLIS);
    InputStream raw = accepted.getInputStream();
    int first = raw.read();
    if (first < 0) {
      throw new EOFException("the peer closed before sending anything");
    }
    ByteArrayInputStream peeked = new ByteArrayInputStream(new byte[] {(byte) first});
    if (first != TLS_HANDSHAKE_RECORD) {
      String refusal =
          mode == TlsMode.REQUIRE
              ? "this monitor speaks TLS only (--tls require): give the client --tls-certificates"
                  + " DIR (or TIDESTORE_TLS_CERTIFICATES) with ca-cert.pem, client-cert.pem and"
                  + " client-key.pem of the cluster's CA"
              : null;
      if (refusal == null) {
        accepted.setSoTimeout(0); // a refused client keeps the deadline for its one request
      }
      return new Accepted(accepted, new SequenceInputStream(peeked, raw), null, refusal);
    }
    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(accepted, peeked, true);
    SSLParameters parameters = tls.getSSLParameters();
    parameters.setProtocols(new String[] {TlsContexts.PROTOCOL});
    // Asked, not required, even with --tls-verify-peer: a certificate presented is verified in the
    // handshake either way, and a client without one gets a refusal it can print rather than an
    // alert that TLS 1.3 delivers after its handshake has already succeeded.
    parameters.setWantClientAuth(true);
    tls.setSSLParameters(parameters);
    try {
      tls.startHandshake();
    } catch (IOException e) {
      throw new IOException(
          "TLS handshake with "
              + accepted.getRemoteSocketAddress()
              + " failed: "
              + TlsErrors.describe(e),
          e);
    }
    String peer = PeerIdentity.of(tls.getSession());
    if (verifyPeer && peer == null) {
      return new Accepted(
          tls,
          tls.getInputStream(),
          null,
          "no client certificate: this monitor requires one (--tls-verify-peer); give the client"
              + " --tls-certificates DIR with client-cert.pem and client-key.pem of the cluster's"
              + " CA");
    }
    tls.setSoTimeout(0);
    return new Accepted(tls, tls.getInputStream(), peer, null);
  }

  @Override
  public Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
    Socket raw = LinkSecurity.connectTcp(address, timeoutMillis);
    try {
      SSLSocket tls =
          (SSLSocket)
              context
                  .getSocketFactory()
                  .createSocket(raw, address.getHostString(), address.getPort(), true);
      SSLParameters parameters = tls.getSSLParameters();
      parameters.setProtocols(new String[] {TlsContexts.PROTOCOL});
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      tls.setSSLParameters(parameters);
      tls.setSoTimeout(HANDSHAKE_TIMEOUT_MILLIS);
      tls.startHandshake();
      tls.setSoTimeout(0);
      return tls;
    } catch (SSLException e) {
      raw.close();
      // Every monitor would refuse alike: fail now rather than retry until the deadline.
      throw new WireException(
          WireException.NOT_ALLOWED,
          "TLS with monitor "
              + address.getHostString()
              + ":"
              + address.getPort()
              + " failed: "
              + TlsErrors.describe(e)
              + " (does it run with --tls on or require, and the same CA?)");
    } catch (IOException e) {
      raw.close();
      throw e;
    }
  }

  @Override
  public String describe() {
    return "monitor links "
        + (mode == TlsMode.REQUIRE ? "TLS only" : "TLS when the client starts it")
        + ", client certificates "
        + (verifyPeer ? "required" : "optional")
        + ", "
        + TlsContexts.PROTOCOL
        + " (JDK)";
  }
}
