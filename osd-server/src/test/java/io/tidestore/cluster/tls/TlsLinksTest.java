package io.tidestore.cluster.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.WireException;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Monitor links over real loopback sockets with certificates from {@code tls init}: a client of the
 * CA is admitted over TLS 1.3 under its certificate's name, and everything else is refused with the
 * reason on the side that can say it: plaintext, no certificate, another CA (either way round), a
 * server certificate that does not name the host dialed.
 */
class TlsLinksTest {
  private static final int CONNECT_MILLIS = 5000;

  @TempDir static Path dir;
  private static Path pki;
  private static Path other;

  @BeforeAll
  static void certificates() throws Exception {
    pki = dir.resolve("pki");
    other = dir.resolve("other");
    TlsInit.run(
        pki, List.of("127.0.0.1", "localhost"), List.of("admin"), Duration.ofDays(1), n -> {});
    // Another CA, whose server certificate names only localhost.
    TlsInit.run(other, List.of("localhost"), List.of("admin"), Duration.ofDays(1), n -> {});
  }

  private static SecuritySettings monitor(Path certificates, TlsMode mode, boolean verifyPeer) {
    return new SecuritySettings(
        mode,
        certificates,
        verifyPeer,
        TlsProvider.JDK,
        null,
        false,
        InetAddress.getLoopbackAddress());
  }

  private static Path client(Path ca, String name) {
    return TlsInit.clientDir(ca, name);
  }

  /** One listener that admits the first link it accepts; the future holds the admission. */
  private record OneLink(ServerSocket listener, CompletableFuture<LinkSecurity.Accepted> admitted)
      implements AutoCloseable {
    static OneLink accept(LinkSecurity links) throws IOException {
      ServerSocket listener =
          links.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      CompletableFuture<LinkSecurity.Accepted> admitted = new CompletableFuture<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  admitted.complete(links.admit(listener.accept()));
                } catch (IOException e) {
                  admitted.completeExceptionally(e);
                }
              });
      return new OneLink(listener, admitted);
    }

    /** The address to dial, by IP literal: the monitor's certificate must name 127.0.0.1. */
    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), listener.getLocalPort());
    }

    LinkSecurity.Accepted await() throws Exception {
      return admitted.get(20, TimeUnit.SECONDS);
    }

    /** The admission's failure message. */
    String failure() {
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> admitted.get(20, TimeUnit.SECONDS));
      assertInstanceOf(IOException.class, e.getCause());
      return e.getCause().getMessage();
    }

    @Override
    public void close() throws IOException {
      listener.close();
      LinkSecurity.Accepted accepted = admitted.exceptionally(failure -> null).getNow(null);
      if (accepted != null) {
        accepted.socket().close();
      }
    }
  }

  @Test
  void aClientOfTheCaIsAdmittedOverTls13UnderItsName() throws Exception {
    LinkSecurity server = TlsLinks.monitor(monitor(pki, TlsMode.REQUIRE, true));
    try (OneLink link = OneLink.accept(server);
        Socket client =
            TlsLinks.client(client(pki, "admin")).connect(link.address(), CONNECT_MILLIS)) {
      client.getOutputStream().write(42);
      client.getOutputStream().flush();
      LinkSecurity.Accepted accepted = link.await();
      assertEquals("admin", accepted.peer());
      assertNull(accepted.refusal());
      assertEquals(42, accepted.in().read());
      accepted.socket().getOutputStream().write(7);
      accepted.socket().getOutputStream().flush();
      assertEquals(7, client.getInputStream().read());
      assertEquals("TLSv1.3", ((SSLSocket) client).getSession().getProtocol());
    }
    assertTrue(server.describe().contains("TLS only"), server.describe());
  }

  @Test
  void anOsdPresentsItsServerCertificate() throws Exception {
    SecuritySettings settings = monitor(pki, TlsMode.REQUIRE, true);
    try (OneLink link = OneLink.accept(TlsLinks.monitor(settings));
        Socket osd = TlsLinks.osd(settings).connect(link.address(), CONNECT_MILLIS)) {
      assertEquals("127.0.0.1", link.await().peer(), "the server certificate's CN");
      assertTrue(osd.isConnected());
    }
    assertEquals(
        LinkSecurity.PLAINTEXT,
        TlsLinks.osd(SecuritySettings.plaintext()),
        "an OSD without TLS reaches its monitors in plaintext");
  }

  @Test
  void plaintextIsRefusedByATlsOnlyMonitorWithItsBytesKept() throws Exception {
    byte[] frame = {0, 0, 0, 3, 1, 2, 3};
    for (TlsMode mode : new TlsMode[] {TlsMode.REQUIRE, TlsMode.ON}) {
      try (OneLink link = OneLink.accept(TlsLinks.monitor(monitor(pki, mode, false)));
          Socket plain = new Socket()) {
        plain.connect(link.address(), CONNECT_MILLIS);
        OutputStream out = plain.getOutputStream();
        out.write(frame);
        out.flush();
        LinkSecurity.Accepted accepted = link.await();
        assertArrayEquals(frame, accepted.in().readNBytes(frame.length), "nothing lost");
        assertNull(accepted.peer());
        if (mode == TlsMode.REQUIRE) {
          assertTrue(accepted.refusal().contains("speaks TLS only"), accepted.refusal());
        } else {
          assertNull(accepted.refusal(), "--tls on serves plaintext too");
        }
      }
    }
  }

  @Test
  void aClientWithoutCertificateIsRefusedOnlyWhenPeersAreVerified() throws Exception {
    Path caOnly = Files.createDirectories(dir.resolve("ca-only"));
    Files.copy(pki.resolve(CertificateFiles.CA), caOnly.resolve(CertificateFiles.CA));
    for (boolean verifyPeer : new boolean[] {true, false}) {
      try (OneLink link =
              OneLink.accept(TlsLinks.monitor(monitor(pki, TlsMode.REQUIRE, verifyPeer)));
          Socket client = TlsLinks.client(caOnly).connect(link.address(), CONNECT_MILLIS)) {
        LinkSecurity.Accepted accepted = link.await();
        assertNull(accepted.peer());
        assertEquals("TLSv1.3", ((SSLSocket) client).getSession().getProtocol());
        if (verifyPeer) {
          assertTrue(accepted.refusal().startsWith("no client certificate"), accepted.refusal());
        } else {
          assertNull(accepted.refusal());
        }
      }
    }
  }

  @Test
  void aClientOfAnotherCaRefusesTheMonitorAndSaysWhy() throws Exception {
    try (OneLink link = OneLink.accept(TlsLinks.monitor(monitor(pki, TlsMode.REQUIRE, true)))) {
      WireException e =
          assertThrows(
              WireException.class,
              () ->
                  TlsLinks.client(client(other, "admin")).connect(link.address(), CONNECT_MILLIS));
      assertEquals(WireException.NOT_ALLOWED, e.code(), "no other monitor would do better");
      assertTrue(e.getMessage().contains("not signed by the expected CA"), e.getMessage());
      assertTrue(link.failure().startsWith("TLS handshake with /127.0.0.1:"));
    }
  }

  @Test
  void theMonitorRefusesACertificateOfAnotherCa() throws Exception {
    // Trusts the monitor, but presents a certificate the monitor's CA did not sign.
    Path forged = Files.createDirectories(dir.resolve("forged"));
    Files.copy(pki.resolve(CertificateFiles.CA), forged.resolve(CertificateFiles.CA));
    for (String file : List.of(CertificateFiles.CLIENT_CERT, CertificateFiles.CLIENT_KEY)) {
      Files.copy(client(other, "admin").resolve(file), forged.resolve(file));
    }
    try (OneLink link = OneLink.accept(TlsLinks.monitor(monitor(pki, TlsMode.REQUIRE, true)))) {
      try (Socket client = TlsLinks.client(forged).connect(link.address(), CONNECT_MILLIS)) {
        client.setSoTimeout(20_000);
        client.getInputStream().read(); // TLS 1.3: the refusal comes after the client's handshake
      } catch (IOException expected) {
        // The monitor's alert: what matters is that the monitor refused it, and why.
      }
      String failure = link.failure();
      assertTrue(failure.contains("not signed by the expected CA"), failure);
    }
  }

  @Test
  void theMonitorsCertificateMustNameTheHostDialed() throws Exception {
    try (OneLink link = OneLink.accept(TlsLinks.monitor(monitor(other, TlsMode.REQUIRE, true)))) {
      WireException e =
          assertThrows(
              WireException.class,
              () ->
                  TlsLinks.client(client(other, "admin")).connect(link.address(), CONNECT_MILLIS));
      assertTrue(e.getMessage().contains("does not name the host dialed"), e.getMessage());
    }
  }
}
