package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code openssl s_client} against a daemon's TLS port: a client outside the JVM, with a client's
 * certificate directory ({@code ca-cert.pem}, {@code client-cert.pem}, {@code client-key.pem}), TLS
 * 1.3 only (or 1.2 only, to see it refused), the daemon's certificate checked against 127.0.0.1.
 */
final class OpenSslClient {
  private OpenSslClient() {}

  /**
   * Connects to 127.0.0.1:{@code port}, completes the handshake, hangs up; fails unless it exits 0.
   */
  static String handshake(int port, Path client) throws Exception {
    Result r = connect(port, client, "-tls1_3");
    assertEquals(0, r.exit(), r.output());
    return r.output();
  }

  /**
   * Offers TLS 1.2 only, with the same certificates: the daemon must refuse the handshake; fails
   * unless openssl exits non-zero. Its output.
   */
  static String refusesTls12(int port, Path client) throws Exception {
    Result r = connect(port, client, "-tls1_2");
    assertNotEquals(0, r.exit(), r.output());
    return r.output();
  }

  private record Result(int exit, String output) {}

  private static Result connect(int port, Path client, String protocol) throws Exception {
    List<String> command =
        List.of(
            "openssl",
            "s_client",
            "-connect",
            "127.0.0.1:" + port,
            protocol,
            "-verify_return_error",
            "-verify_ip",
            "127.0.0.1",
            "-CAfile",
            client.resolve("ca-cert.pem").toString(),
            "-cert",
            client.resolve("client-cert.pem").toString(),
            "-key",
            client.resolve("client-key.pem").toString());
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("openssl s_client did not finish:\n" + output);
    }
    return new Result(p.exitValue(), output);
  }
}
