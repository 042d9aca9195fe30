package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tls init's files work as they will be used: a TLS 1.3 handshake between the server context and a
 * client context, with the client's CN seen as its identity; a client of another CA is refused.
 */
class TlsInitTest {
  @TempDir Path dir;

  private static final List<String> SANS = List.of("127.0.0.1", "localhost");

  private void init(Path where, String... clients) throws Exception {
    TlsInit.run(where, SANS, List.of(clients), Duration.ofDays(30), line -> {});
  }

  @Test
  void writesTheLayoutsWithPrivateKeysReadableByTheOwnerOnly() throws Exception {
    List<String> notes = new ArrayList<>();
    TlsInit.run(dir, SANS, List.of("alice", "bob"), Duration.ofDays(30), notes::add);
    for (String f : List.of("ca-cert.pem", "ca-key.pem", "server-cert.pem", "server-key.pem")) {
      assertTrue(Files.isRegularFile(dir.resolve(f)), f);
    }
    for (String c : List.of("alice", "bob")) {
      Path cd = TlsInit.clientDir(dir, c);
      for (String f : List.of("ca-cert.pem", "client-cert.pem", "client-key.pem")) {
        assertTrue(Files.isRegularFile(cd.resolve(f)), c + "/" + f);
      }
      assertEquals(
          Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
          Files.getPosixFilePermissions(cd.resolve("client-key.pem")));
    }
    assertEquals(
        Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
        Files.getPosixFilePermissions(dir.resolve("server-key.pem")));
    byte[] caBefore = Files.readAllBytes(dir.resolve("ca-cert.pem"));
    byte[] serverBefore = Files.readAllBytes(dir.resolve("server-cert.pem"));
    init(dir, "carol"); // a second run keeps the CA and the server certificate
    assertTrue(java.util.Arrays.equals(caBefore, Files.readAllBytes(dir.resolve("ca-cert.pem"))));
    assertTrue(
        java.util.Arrays.equals(serverBefore, Files.readAllBytes(dir.resolve("server-cert.pem"))));
    assertTrue(Files.isRegularFile(TlsInit.clientDir(dir, "carol").resolve("client-cert.pem")));
  }

  @Test
  void aClientOfTheCaHandshakesAndIsKnownByItsCommonName() throws Exception {
    init(dir, "alice");
    SslContext server = TlsContexts.server(CertificateFiles.server(dir), true, SslProvider.JDK);
    SslContext client =
        TlsContexts.client(
            CertificateFiles.client(TlsInit.clientDir(dir, "alice")), SslProvider.JDK);
    SSLEngine s = server.newEngine(UnpooledByteBufAllocator.DEFAULT);
    SSLEngine c = client.newEngine(UnpooledByteBufAllocator.DEFAULT, "localhost", 10809);
    handshake(c, s);
    assertEquals("TLSv1.3", s.getSession().getProtocol());
    assertEquals("alice", PeerIdentity.of(s.getSession()));
  }

  @Test
  void aClientOfAnotherCaIsRefusedWhenPeersAreVerified() throws Exception {
    init(dir);
    Path other = dir.resolve("other");
    init(other, "mallory");
    SslContext server = TlsContexts.server(CertificateFiles.server(dir), true, SslProvider.JDK);
    // Mallory trusts our server (she has our CA) but her certificate is from her own CA.
    Path mixed = dir.resolve("mixed");
    Files.createDirectories(mixed);
    Files.copy(dir.resolve("ca-cert.pem"), mixed.resolve("ca-cert.pem"));
    Path m = TlsInit.clientDir(other, "mallory");
    Files.copy(m.resolve("client-cert.pem"), mixed.resolve("client-cert.pem"));
    Files.copy(m.resolve("client-key.pem"), mixed.resolve("client-key.pem"));
    SslContext client = TlsContexts.client(CertificateFiles.client(mixed), SslProvider.JDK);
    SSLEngine s = server.newEngine(UnpooledByteBufAllocator.DEFAULT);
    SSLEngine c = client.newEngine(UnpooledByteBufAllocator.DEFAULT, "localhost", 10809);
    assertThrows(SSLException.class, () -> handshake(c, s));
  }

  @Test
  void withoutPeerVerificationAClientWithoutACertificateHasNoIdentity() throws Exception {
    init(dir);
    Path caOnly = dir.resolve("ca-only");
    Files.createDirectories(caOnly);
    Files.copy(dir.resolve("ca-cert.pem"), caOnly.resolve("ca-cert.pem"));
    SslContext server = TlsContexts.server(CertificateFiles.server(dir), false, SslProvider.JDK);
    SslContext client = TlsContexts.client(CertificateFiles.client(caOnly), SslProvider.JDK);
    SSLEngine s = server.newEngine(UnpooledByteBufAllocator.DEFAULT);
    SSLEngine c = client.newEngine(UnpooledByteBufAllocator.DEFAULT, "localhost", 10809);
    handshake(c, s);
    assertNull(PeerIdentity.of(s.getSession()));
  }

  @Test
  void missingFilesAreNamed() {
    IOException e = assertThrows(IOException.class, () -> CertificateFiles.server(dir));
    assertTrue(e.getMessage().contains("ca-cert.pem"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> TlsInit.run(dir, SANS, List.of("bad name"), Duration.ofDays(1), l -> {}));
  }

  /** Drives two engines through their handshake in memory; throws what either refuses. */
  private static void handshake(SSLEngine client, SSLEngine server) throws SSLException {
    client.beginHandshake();
    server.beginHandshake();
    ByteBuffer c2s = ByteBuffer.allocate(1 << 17);
    ByteBuffer s2c = ByteBuffer.allocate(1 << 17);
    ByteBuffer app = ByteBuffer.allocate(1 << 17);
    ByteBuffer empty = ByteBuffer.allocate(0);
    for (int round = 0; round < 100; round++) {
      step(client, empty, c2s, s2c, app);
      step(server, empty, s2c, c2s, app);
      if (done(client) && done(server)) {
        return;
      }
    }
    throw new AssertionError("handshake did not finish");
  }

  private static boolean done(SSLEngine e) {
    SSLEngineResult.HandshakeStatus h = e.getHandshakeStatus();
    return h == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
        || h == SSLEngineResult.HandshakeStatus.FINISHED;
  }

  /** One engine: wrap into {@code out}, unwrap what the peer wrote into {@code in}. */
  private static void step(
      SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer app)
      throws SSLException {
    e.wrap(empty, out);
    Runnable task;
    while ((task = e.getDelegatedTask()) != null) {
      task.run();
    }
    in.flip();
    while (in.hasRemaining()) {
      SSLEngineResult r = e.unwrap(in, app);
      while ((task = e.getDelegatedTask()) != null) {
        task.run();
      }
      if (r.bytesConsumed() == 0) {
        break;
      }
    }
    in.compact();
    app.clear();
  }
}
