package io.tidestore.osd.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin listener with the JDK's HTTP client: its pages and their errors in plaintext, HTTPS
 * with client certificates where TLS is required, HTTP and HTTPS on one port where it is optional,
 * and the grants: {@code r} reads /metrics and /status, {@code *} the rest.
 */
class AdminHttpServerTest {
  @TempDir Path dir;

  private AdminHttpServer server;
  private ServerSecurity security;
  private final List<String> switched = new ArrayList<>();

  @BeforeEach
  void certificates() throws Exception {
    TlsInit.run(
        dir.resolve("pki"),
        List.of("127.0.0.1"),
        List.of("admin", "prom", "vm1"),
        Duration.ofDays(1),
        line -> {});
    Files.writeString(dir.resolve("auth"), "admin allow *\nprom allow r\nvm1 allow rw image=vm1\n");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void serve(TlsMode mode) throws IOException {
    security =
        mode == TlsMode.OFF
            ? ServerSecurity.plaintext()
            : ServerSecurity.open(
                new SecuritySettings(
                    mode,
                    dir.resolve("pki"),
                    mode == TlsMode.REQUIRE,
                    TlsProvider.AUTO,
                    dir.resolve("auth"),
                    false,
                    InetAddress.getLoopbackAddress()));
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            security,
            mode,
            () -> "tidestore_up 1\n",
            prefix -> "{\"prefix\":\"" + prefix + "\"}",
            () -> "{\"state\":\"active\"}",
            policy -> {
              if (!policy.equals("lru")) {
                throw new IllegalArgumentException("unknown policy " + policy);
              }
              switched.add(policy);
              return "{\"policy\":\"lru\"}";
            });
  }

  /** Sends {@code method path} as {@code client} (null: plaintext HTTP). */
  private HttpResponse<String> send(String client, String method, String path)
      throws IOException, InterruptedException {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    String scheme = "http";
    if (client != null) {
      scheme = "https";
      b.sslContext(
              TlsContexts.jdkClient(
                  CertificateFiles.client(TlsInit.clientDir(dir.resolve("pki"), client))))
          .sslParameters(new SSLParameters(null, new String[] {"TLSv1.3"}));
    }
    try (HttpClient http = b.build()) {
      return http.send(
          HttpRequest.newBuilder(
                  URI.create(scheme + "://127.0.0.1:" + server.address().getPort() + path))
              .method(method, HttpRequest.BodyPublishers.noBody())
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void plaintextPagesAndTheirErrors() throws Exception {
    serve(TlsMode.OFF);
    HttpResponse<String> metrics = send(null, "GET", "/metrics");
    assertEquals(200, metrics.statusCode());
    assertEquals("tidestore_up 1\n", metrics.body());
    assertTrue(metrics.headers().firstValue("content-type").orElseThrow().startsWith("text/plain"));
    HttpResponse<String> head = send(null, "HEAD", "/status");
    assertEquals(200, head.statusCode());
    assertEquals("", head.body());
    assertEquals("{\"prefix\":\"a b\"}", send(null, "GET", "/dump_metrics?prefix=a%20b").body());
    assertEquals(404, send(null, "GET", "/nothing").statusCode());
    HttpResponse<String> post = send(null, "POST", "/metrics");
    assertEquals(405, post.statusCode());
    assertEquals("GET, HEAD", post.headers().firstValue("allow").orElseThrow());
    assertEquals(405, send(null, "GET", "/admin/cache-policy?policy=lru").statusCode());
    assertEquals(400, send(null, "POST", "/admin/cache-policy?policy=fifo").statusCode());
    assertEquals(200, send(null, "POST", "/admin/cache-policy?policy=lru").statusCode());
    assertEquals(List.of("lru"), switched);
  }

  @Test
  void requiredTlsServesHttpsByGrant() throws Exception {
    serve(TlsMode.REQUIRE);
    assertEquals(200, send("prom", "GET", "/metrics").statusCode());
    assertEquals(200, send("prom", "GET", "/status").statusCode());
    HttpResponse<String> dump = send("prom", "GET", "/dump_metrics");
    assertEquals(403, dump.statusCode());
    assertTrue(dump.body().contains("client 'prom' needs '*'"), dump.body());
    assertEquals(403, send("prom", "POST", "/admin/cache-policy?policy=lru").statusCode());
    assertEquals(403, send("vm1", "GET", "/metrics").statusCode(), "image-narrowed reads all");
    assertEquals(List.of(), switched, "a refused switch ran");
    assertEquals(200, send("admin", "POST", "/admin/cache-policy?policy=lru").statusCode());
    assertEquals(List.of("lru"), switched);
    assertEquals(2, security.counters().refusedFor(Refusal.NO_ADMIN_CAP));
    assertEquals(1, security.counters().refusedFor(Refusal.NO_READ_CAP));

    // Plain HTTP on a raw socket (the JDK client would retry): closed without an answer.
    try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort())) {
      plain.setSoTimeout(10_000);
      plain.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(UTF_8));
      assertEquals(-1, plain.getInputStream().read());
    }
    assertEquals(1, security.counters().handshakeFailures());
    assertEquals(200, send("prom", "GET", "/metrics").statusCode(), "served after a failure");
  }

  @Test
  void optionalTlsServesHttpAndHttpsOnOnePort() throws Exception {
    serve(TlsMode.ON);
    assertEquals(200, send("prom", "GET", "/metrics").statusCode());
    HttpResponse<String> plain = send(null, "GET", "/metrics");
    assertEquals(403, plain.statusCode(), "with an auth file, plaintext has no identity");
    assertTrue(plain.body().contains("presented none"), plain.body());
    assertEquals(1, security.counters().refusedFor(Refusal.NO_CERTIFICATE));
  }
}
