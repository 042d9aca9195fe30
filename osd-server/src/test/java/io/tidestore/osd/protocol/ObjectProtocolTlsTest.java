package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslContext;
import io.tidestore.client.ObjectClient;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.osd.security.CertificateAuthority;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.Refusal;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The object protocol over TLS on real reactors and sockets, with both TLS providers: every op is
 * checked against the client's grants before it reaches the ops, a refusal is EPERM on a connection
 * that stays usable, plaintext is refused where TLS is required and served where it is optional,
 * and the client checks that the server's certificate names the host it dialed.
 */
class ObjectProtocolTlsTest {
  private static final ServerLimits LIMITS =
      new ServerLimits(64, Duration.ofSeconds(5), Duration.ofSeconds(5));
  private static final String VM1_DATA = "rbd_data.vm1.0000000000000000";

  @TempDir Path dir;

  private Reactors reactors;
  private ObjectProtocolServer server;
  private ServerSecurity security;
  private final CountingOps ops = new CountingOps();

  @BeforeEach
  void start() throws Exception {
    reactors =
        Reactors.start(
            Transport.EPOLL,
            new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
            Optional.empty());
    TlsInit.run(
        dir.resolve("pki"),
        List.of("127.0.0.1", "localhost"),
        List.of("ro", "vm1", "stranger"),
        Duration.ofDays(1),
        line -> {});
    Files.writeString(dir.resolve("auth"), "ro allow r\nvm1 allow rw image=vm1\n");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    reactors.close();
  }

  private void serve(TlsMode mode, TlsProvider provider) throws Exception {
    security =
        ServerSecurity.open(
            new SecuritySettings(
                mode,
                dir.resolve("pki"),
                mode == TlsMode.REQUIRE,
                provider,
                dir.resolve("auth"),
                false,
                InetAddress.getLoopbackAddress()));
    server =
        ObjectProtocolServer.start(
            reactors,
            InetAddress.getLoopbackAddress(),
            0,
            ops,
            LIMITS,
            OpLatencies.NONE,
            new InboundBudget(InboundBudget.DEFAULT_BYTES),
            security);
  }

  private SslContext clientTls(String name) throws IOException {
    return TlsContexts.client(
        CertificateFiles.client(TlsInit.clientDir(dir.resolve("pki"), name)),
        io.netty.handler.ssl.SslProvider.JDK);
  }

  private ObjectClient connect(SslContext tls) throws Exception {
    return await(
        ObjectClient.connect(
            reactors.group(), Transport.EPOLL.socketChannel(), server.address(), tls));
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private static OpException refused(CompletableFuture<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(f));
    OpException op = assertInstanceOf(OpException.class, e.getCause());
    assertEquals(Status.EPERM, op.status(), op.getMessage());
    return op;
  }

  private static ByteBuf bytes() {
    return Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
  }

  @ParameterizedTest
  @EnumSource(
      value = TlsProvider.class,
      names = {"JDK", "OPENSSL"})
  void aReadOnlyClientIsRefusedEveryMutationAndKeepsReading(TlsProvider provider) throws Exception {
    serve(TlsMode.REQUIRE, provider);
    try (ObjectClient ro = connect(clientTls("ro"))) {
      OpException write = refused(ro.write(VM1_DATA, 0, bytes()));
      assertTrue(write.getMessage().contains("client 'ro' needs 'rw'"), write.getMessage());
      refused(ro.truncate(VM1_DATA, 0));
      refused(ro.remove(VM1_DATA));
      refused(ro.setXattr(VM1_DATA, "k", bytes()));
      refused(ro.removeXattr(VM1_DATA, "k"));
      assertEquals(0, ops.mutations.get(), "a refused mutation reached the ops");
      assertEquals(5, security.counters().refusedFor(Refusal.NO_WRITE_CAP));

      ByteBuf data = await(ro.read(VM1_DATA, 0, 3));
      try {
        assertEquals(3, data.readableBytes());
      } finally {
        data.release();
      }
      assertEquals(3, await(ro.stat("loose-object")).size());
      assertEquals(1, await(ro.list(0, "", 10)).names().size());
    }
  }

  @Test
  void anImageNarrowedClientReachesOnlyItsImage() throws Exception {
    serve(TlsMode.REQUIRE, TlsProvider.JDK);
    try (ObjectClient vm1 = connect(clientTls("vm1"))) {
      await(vm1.write(VM1_DATA, 0, bytes()));
      await(vm1.setXattr("rbd_header.vm1", "size", bytes()));
      refused(vm1.write("rbd_data.vm2.0000000000000000", 0, bytes()));
      refused(vm1.stat("rbd_header.vm2"));
      refused(vm1.read("loose-object", 0, 1));
      OpException list = refused(vm1.list(0, "", 10));
      assertTrue(list.getMessage().contains("list of pool rbd"), list.getMessage());
      assertEquals(2, ops.mutations.get());
      assertEquals(0, ops.reads.get());
      assertEquals(3, security.counters().refusedFor(Refusal.NO_READ_CAP));
    }
  }

  @Test
  void aClientTheAuthFileDoesNotNameMayDoNothing() throws Exception {
    serve(TlsMode.REQUIRE, TlsProvider.JDK);
    try (ObjectClient stranger = connect(clientTls("stranger"))) {
      assertArrayEquals(new byte[] {9}, await(stranger.ping(new byte[] {9})));
      OpException e = refused(stranger.stat(VM1_DATA));
      assertTrue(e.getMessage().contains("no grant for client 'stranger'"), e.getMessage());
      assertEquals(1, security.counters().refusedFor(Refusal.UNKNOWN_CLIENT));
      assertEquals(0, ops.reads.get());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TlsProvider.class,
      names = {"JDK", "OPENSSL"})
  void plaintextToATlsOnlyPortIsRefusedAndCounted(TlsProvider provider) throws Exception {
    serve(TlsMode.REQUIRE, provider);
    ExecutionException e = assertThrows(ExecutionException.class, () -> connect(null));
    assertTrue(e.getCause().getMessage().contains("does it require TLS"), e.getCause().toString());
    assertEquals(1, security.counters().handshakeFailures());
    try (ObjectClient ro = connect(clientTls("ro"))) {
      assertEquals(3, await(ro.stat("x")).size(), "served after the refusal");
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TlsProvider.class,
      names = {"JDK", "OPENSSL"})
  void certificatesOfAnotherCaExpiredOrMissingAreRefusedAtTheHandshake(TlsProvider provider)
      throws Exception {
    Path pki = dir.resolve("pki");
    TlsInit.run(
        dir.resolve("other"), List.of("127.0.0.1"), List.of("ro"), Duration.ofDays(1), l -> {});
    Path expired = Files.createDirectories(dir.resolve("expired"));
    CertificateAuthority ca = CertificateAuthority.load(pki);
    CertificateAuthority.Issued late =
        ca.client("ro", Instant.now().minus(Duration.ofDays(10)), Duration.ofDays(1));
    Files.copy(pki.resolve("ca-cert.pem"), expired.resolve("ca-cert.pem"));
    CertificateAuthority.writeCertificate(expired.resolve("client-cert.pem"), late.certificate());
    CertificateAuthority.writeKey(expired.resolve("client-key.pem"), late.key());
    Path caOnly = Files.createDirectories(dir.resolve("ca-only"));
    Files.copy(pki.resolve("ca-cert.pem"), caOnly.resolve("ca-cert.pem"));
    // The other CA's client trusts this server's CA, so only the server's check refuses it.
    Path otherCa = TlsInit.clientDir(dir.resolve("other"), "ro");
    Files.copy(
        pki.resolve("ca-cert.pem"),
        otherCa.resolve("ca-cert.pem"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    serve(TlsMode.REQUIRE, provider);
    try (HandshakeLog log = new HandshakeLog()) {
      for (Path client : List.of(otherCa, expired, caOnly)) {
        SslContext tls =
            TlsContexts.client(
                CertificateFiles.client(client), io.netty.handler.ssl.SslProvider.JDK);
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect(tls));
        String why = e.getCause().getMessage();
        assertTrue(why.contains("refused") || why.contains("no client certificate"), why);
      }
      assertTrue(log.next().contains("not signed by the expected CA"), log.last);
      assertTrue(log.next().contains("has expired"), log.last);
      assertTrue(log.next().contains("no client certificate"), log.last);
    }
    assertEquals(3, security.counters().handshakeFailures());
    assertEquals(0, ops.reads.get() + ops.mutations.get());
  }

  /** The daemon's one-line handshake failures, as they are logged. */
  private static final class HandshakeLog extends Handler implements AutoCloseable {
    private final Logger logger = Logger.getLogger("io.tidestore.osd.security.HandshakeWatch");
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    String last;

    HandshakeLog() {
      logger.addHandler(this);
    }

    /** The next line logged, waiting for it. */
    String next() throws InterruptedException {
      last = lines.poll(10, TimeUnit.SECONDS);
      assertTrue(last != null, "no handshake failure logged");
      return last;
    }

    @Override
    public void publish(LogRecord record) {
      lines.add(record.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
    }
  }

  @Test
  void theOptionalModeServesPlaintextAndTlsOnOnePort() throws Exception {
    serve(TlsMode.ON, TlsProvider.OPENSSL);
    try (ObjectClient tls = connect(clientTls("ro"));
        ObjectClient plain = connect(null)) {
      assertEquals(3, await(tls.stat("x")).size());
      OpException e = refused(plain.stat("x"));
      assertTrue(e.getMessage().contains("presented none"), e.getMessage());
      assertEquals(1, security.counters().refusedFor(Refusal.NO_CERTIFICATE));
      assertArrayEquals(new byte[] {4}, await(plain.ping(new byte[] {4})));
    }
    assertEquals(0, security.counters().handshakeFailures());
  }

  @Test
  void everyReactorPortSpeaksTls() throws Exception {
    serve(TlsMode.REQUIRE, TlsProvider.OPENSSL);
    try (ShardAwareClient client =
        await(
            ShardAwareClient.connect(
                reactors.group(),
                Transport.EPOLL.socketChannel(),
                server.address(),
                clientTls("vm1")))) {
      await(client.write(VM1_DATA, 0, bytes()));
      assertEquals(1, client.reactor(1).reactor());
      refused(client.reactor(1).remove("rbd_header.vm2"));
    }
    InetSocketAddress reactorPort =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.shardMap().reactorPort(1));
    assertThrows(
        ExecutionException.class,
        () ->
            await(
                ObjectClient.connect(
                    reactors.group(), Transport.EPOLL.socketChannel(), reactorPort, null)));
    assertEquals(1, security.counters().handshakeFailures());
  }

  @Test
  void theClientRefusesACertificateThatDoesNotNameTheHostDialed() throws Exception {
    // A server whose certificate names only 10.9.9.9, dialed at 127.0.0.1.
    Path other = dir.resolve("elsewhere");
    TlsInit.run(other, List.of("10.9.9.9"), List.of("ro"), Duration.ofDays(1), line -> {});
    for (String file : List.of("ca-cert.pem", "server-cert.pem", "server-key.pem")) {
      Files.copy(
          other.resolve(file),
          dir.resolve("pki").resolve(file),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    serve(TlsMode.REQUIRE, TlsProvider.JDK);
    SslContext tls =
        TlsContexts.client(
            CertificateFiles.client(TlsInit.clientDir(other, "ro")),
            io.netty.handler.ssl.SslProvider.JDK);
    ExecutionException e = assertThrows(ExecutionException.class, () -> connect(tls));
    assertTrue(
        e.getCause().getMessage().contains("does not name the host dialed"),
        e.getCause().getMessage());
  }
}
