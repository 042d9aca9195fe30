package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.tidestore.client.ObjectClient;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile clients against the real daemon under {@code --tls require --tls-verify-peer
 * --auth-file}: each is refused clearly (one log line, no stack trace), counted, nothing of theirs
 * reaches the store, and a good client is served after each. The certificates come from {@code
 * tidestore tls init}, checked with {@code openssl verify} and {@code openssl s_client}; the
 * metrics are scraped over HTTPS with a client certificate by {@code curl}.
 */
class SecurityIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Pattern OBJECT_PORT = Pattern.compile("object=(\\d+)");
  private static final String VM1_DATA = "rbd_data.vm1.0000000000000000";
  private static final String VM2_DATA = "rbd_data.vm2.0000000000000000";
  private static final String HANDSHAKE_FAILED =
      "HandshakeWatch: object protocol: TLS handshake with ";

  @TempDir Path dir;

  private Path pki;
  private int objectPort;
  private int metricsPort;

  @Test
  void hostileClientsAreRefusedAndGoodOnesKeepBeingServed() throws Exception {
    RequiredTools.command("openssl", "openssl");
    RequiredTools.command("curl", "curl");
    pki = dir.resolve("pki");
    tidestore("tls", "init", "--dir", pki.toString(), "--client", "admin", "ro", "vm1");
    for (String client : List.of("admin", "ro", "vm1")) {
      run(
          "openssl",
          "verify",
          "-CAfile",
          pki.resolve("ca-cert.pem").toString(),
          client(client).resolve("client-cert.pem").toString());
    }
    String verified =
        run(
            "openssl",
            "verify",
            "-CAfile",
            pki.resolve("ca-cert.pem").toString(),
            "-verify_ip",
            "127.0.0.1",
            pki.resolve("server-cert.pem").toString());
    assertTrue(verified.contains(": OK"), verified);
    Path auth = dir.resolve("auth");
    Files.writeString(auth, "admin allow *\nro allow r\nvm1 allow rw image=vm1\n");

    try (OsdProcess osd =
            OsdProcess.startOsd(
                dir.resolve("osd.0"),
                "--tls",
                "require",
                "--tls-verify-peer",
                "--tls-certificates",
                pki.toString(),
                "--auth-file",
                auth.toString());
        MultiThreadIoEventLoopGroup group =
            new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory())) {
      metricsPort = osd.awaitReady();
      String ready = osd.awaitLine("tidestore osd ready", WAIT);
      assertTrue(ready.contains("https /metrics"), ready);
      assertTrue(ready.contains("object protocol TLS only"), ready);
      Matcher m = OBJECT_PORT.matcher(ready);
      assertTrue(m.find(), ready);
      objectPort = Integer.parseInt(m.group(1));

      try (ObjectClient admin = connect(group, client("admin")).get(10, TimeUnit.SECONDS)) {
        assertServed(admin);
        int failures = 0;

        plaintextIsClosedUnanswered();
        osd.awaitLine("the peer did not start TLS", WAIT);
        assertTrue(osd.awaitCountContaining(HANDSHAKE_FAILED, ++failures, WAIT), osd.output());
        assertServed(admin);

        garbageAfterATlsHeaderIsClosed();
        assertTrue(osd.awaitCountContaining(HANDSHAKE_FAILED, ++failures, WAIT), osd.output());
        assertServed(admin);

        truncatedClientHelloIsClosed();
        assertTrue(osd.awaitCountContaining(HANDSHAKE_FAILED, ++failures, WAIT), osd.output());
        assertServed(admin);

        for (Path refused :
            List.of(
                RefusedCertificates.caOnly(pki, dir),
                RefusedCertificates.anotherCa(pki, dir, "admin"),
                RefusedCertificates.expired(pki, dir, "admin"))) {
          ExecutionException e =
              assertThrows(
                  ExecutionException.class,
                  () -> connect(group, refused).get(10, TimeUnit.SECONDS),
                  refused.toString());
          assertInstanceOf(IOException.class, e.getCause(), refused.toString());
          assertTrue(osd.awaitCountContaining(HANDSHAKE_FAILED, ++failures, WAIT), osd.output());
          assertServed(admin);
        }
        osd.awaitLine("no client certificate", WAIT);
        osd.awaitLine("not signed by the expected CA", WAIT);
        osd.awaitLine("has expired", WAIT);

        try (ObjectClient ro = connect(group, client("ro")).get(10, TimeUnit.SECONDS)) {
          assertEquals(Status.EPERM, refusal(ro.write(VM1_DATA, 0, bytes())));
          assertEquals(Status.EPERM, refusal(ro.remove(VM1_DATA)));
          // The same connection still reads.
          assertEquals(Status.ENOENT, refusal(ro.stat(VM1_DATA)));
        }
        osd.awaitLine("client 'ro' needs 'rw'", WAIT);
        try (ObjectClient vm1 = connect(group, client("vm1")).get(10, TimeUnit.SECONDS)) {
          assertEquals(Status.EPERM, refusal(vm1.write(VM2_DATA, 0, bytes())));
          assertEquals(Status.EPERM, refusal(vm1.stat(VM2_DATA)));
          vm1.write(VM1_DATA, 0, bytes()).get(10, TimeUnit.SECONDS);
        }
        osd.awaitLine("client 'vm1' needs", WAIT);
        // Nothing refused reached the store: vm2's object was never written.
        assertEquals(Status.ENOENT, refusal(admin.stat(VM2_DATA)));
        assertEquals(3, admin.stat(VM1_DATA).get(10, TimeUnit.SECONDS).size());
        assertServed(admin);

        String metrics = curlMetrics(client("admin"));
        assertEquals(failures, Scrape.sum(metrics, "tidestore_tls_handshake_failures_total"));
        assertEquals(
            3, Scrape.sum(metrics, "tidestore_ops_refused_total{reason=\"no_write_cap\""), metrics);
        assertEquals(
            1, Scrape.sum(metrics, "tidestore_ops_refused_total{reason=\"no_read_cap\""), metrics);
        // The read-only client may scrape too (r); without a certificate curl gets nothing.
        assertTrue(curlMetrics(client("ro")).contains("tidestore_ops_refused_total"));
        assertFalse(curl(List.of("--cacert", pki.resolve("ca-cert.pem").toString())).ok());

        cliCommandsSpeakTls();

        String sClient = OpenSslClient.handshake(objectPort, client("admin"));
        assertTrue(sClient.contains("Verify return code: 0 (ok)"), sClient);
        assertTrue(sClient.contains("TLSv1.3"), sClient);
        assertServed(admin);
      }
      assertFalse(osd.output().contains("\tat "), "a refusal logged a stack trace");
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(WAIT), osd.output());
    }
  }

  /** {@code image} and {@code admin} from the real jar with a client's certificate directory. */
  private void cliCommandsSpeakTls() throws Exception {
    String admin = client("admin").toString();
    String osd = "127.0.0.1:" + objectPort;
    tidestore("image", "--tls-certificates", admin, "--osd", osd, "create", "cli0", "--size", "8M");
    String listed =
        tidestore("image", "--tls-certificates", client("ro").toString(), "--osd", osd, "ls");
    assertTrue(listed.contains("cli0"), listed);
    try (OsdProcess refused =
        OsdProcess.start(
            "image", "--tls-certificates", client("ro").toString(), "--osd", osd, "rm", "cli0")) {
      assertTrue(refused.awaitExit(WAIT) != 0, refused.output());
      assertTrue(refused.output().contains("EPERM"), refused.output());
    }
    String http = "127.0.0.1:" + metricsPort;
    String status = tidestore("admin", "--tls-certificates", admin, "--http", http, "status");
    assertTrue(status.contains("\"security\":{\"tls\":\"require\""), status);
    try (OsdProcess plain = OsdProcess.start("admin", "--http", http, "status")) {
      assertTrue(
          plain.awaitExit(WAIT) != 0, "plain HTTP to the HTTPS admin port: " + plain.output());
      assertTrue(plain.output().contains("give --tls-certificates"), plain.output());
    }
  }

  /** A write, a read back and a ping by a good client. */
  private static void assertServed(ObjectClient client) throws Exception {
    byte[] data = "served".getBytes(StandardCharsets.US_ASCII);
    client.write("plain-object", 0, Unpooled.wrappedBuffer(data)).get(10, TimeUnit.SECONDS);
    ByteBuf back = client.read("plain-object", 0, data.length).get(10, TimeUnit.SECONDS);
    try {
      byte[] got = new byte[back.readableBytes()];
      back.readBytes(got);
      assertArrayEquals(data, got);
    } finally {
      back.release();
    }
  }

  private static ByteBuf bytes() {
    return Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
  }

  /** The status a refused (or failed) op completes with. */
  private static int refusal(CompletableFuture<?> op) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> op.get(10, TimeUnit.SECONDS));
    return assertInstanceOf(OpException.class, e.getCause()).status();
  }

  private CompletableFuture<ObjectClient> connect(MultiThreadIoEventLoopGroup group, Path client)
      throws IOException {
    SslContext tls = TlsContexts.client(CertificateFiles.client(client), SslProvider.JDK);
    return ObjectClient.connect(
        group,
        EpollSocketChannel.class,
        new InetSocketAddress(InetAddress.getLoopbackAddress(), objectPort),
        tls);
  }

  private Path client(String name) {
    return TlsInit.clientDir(pki, name);
  }

  /** A HELLO-sized plaintext frame: the daemon closes without a protocol answer. */
  private void plaintextIsClosedUnanswered() throws IOException {
    byte[] frame = new byte[16];
    frame[3] = 16;
    frame[4] = 1;
    assertClosed(frame, false);
  }

  /** A TLS handshake record header followed by random bytes. */
  private void garbageAfterATlsHeaderIsClosed() throws IOException {
    assertClosed(TlsProbes.garbageRecord(), false);
  }

  /** The first half of a real TLS 1.3 ClientHello, then the client stops sending. */
  private void truncatedClientHelloIsClosed() throws Exception {
    assertClosed(TlsProbes.halfAClientHello(objectPort), true);
  }

  /**
   * Sends {@code bytes} and expects the daemon to close the connection with no object-protocol
   * answer (at most a TLS alert); {@code halfClose} ends the client's sending first.
   */
  private void assertClosed(byte[] bytes, boolean halfClose) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), objectPort)) {
      socket.setSoTimeout((int) WAIT.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
      if (halfClose) {
        socket.shutdownOutput();
      }
      TlsProbes.assertClosedWithAtMostAnAlert(socket);
    }
  }

  private String curlMetrics(Path client) throws Exception {
    Result r =
        curl(
            List.of(
                "--cacert",
                client.resolve("ca-cert.pem").toString(),
                "--cert",
                client.resolve("client-cert.pem").toString(),
                "--key",
                client.resolve("client-key.pem").toString()));
    assertTrue(r.ok(), r.output());
    return r.output();
  }

  private Result curl(List<String> tlsFlags) throws Exception {
    List<String> command = new ArrayList<>(List.of("curl", "-sS", "--fail", "--max-time", "30"));
    command.addAll(tlsFlags);
    command.add("https://127.0.0.1:" + metricsPort + "/metrics");
    return exec(command, null);
  }

  /** {@code tidestore ARGS...} from the real jar; fails unless it exits 0; its output. */
  private static String tidestore(String... args) throws Exception {
    try (OsdProcess p = OsdProcess.start(args)) {
      assertEquals(0, p.awaitExit(WAIT), String.join(" ", args) + ":\n" + p.output());
      return p.output();
    }
  }

  private static String run(String... command) throws Exception {
    Result r = exec(List.of(command), null);
    assertTrue(r.ok(), String.join(" ", command) + ":\n" + r.output());
    return r.output();
  }

  private record Result(int exit, String output) {
    boolean ok() {
      return exit == 0;
    }
  }

  /** Runs {@code command}, stdin {@code input} (none when null), stdout and stderr merged. */
  private static Result exec(List<String> command, byte[] input) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    if (input == null) {
      builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }
    Process p = builder.start();
    if (input != null) {
      try (OutputStream stdin = p.getOutputStream()) {
        stdin.write(input);
      }
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish:\n" + output);
    }
    return new Result(p.exitValue(), output);
  }
}
