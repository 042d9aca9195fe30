package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Random;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/** What the hostile-client tests send in place of a TLS handshake, and how they see it refused. */
final class TlsProbes {
  /** The first byte of a TLS alert record. */
  private static final byte ALERT = 0x15;

  private TlsProbes() {}

  /**
   * The first half of a real TLS 1.3 ClientHello to 127.0.0.1:{@code port}, as the JDK sends it.
   */
  static byte[] halfAClientHello(int port) throws Exception {
    SSLContext context = SSLContext.getInstance("TLSv1.3");
    context.init(null, null, null);
    SSLEngine engine = context.createSSLEngine("127.0.0.1", port);
    engine.setUseClientMode(true);
    ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), hello);
    hello.flip();
    byte[] half = new byte[hello.remaining() / 2];
    hello.get(half);
    return half;
  }

  /** A TLS handshake record header followed by 64 random bytes (the same ones every run). */
  static byte[] garbageRecord() {
    byte[] garbage = new byte[69];
    new Random(18).nextBytes(garbage);
    garbage[0] = 0x16; // handshake
    garbage[1] = 0x03;
    garbage[2] = 0x03; // TLS 1.2 on the record layer, as TLS 1.3 sends it
    garbage[3] = 0x00;
    garbage[4] = 64; // the length of what follows
    return garbage;
  }

  /**
   * Reads {@code socket} to its end: the daemon must close it having sent nothing, or a TLS alert
   * (no answer of the protocol behind TLS).
   */
  static void assertClosedWithAtMostAnAlert(Socket socket) throws IOException {
    byte[] answer = socket.getInputStream().readAllBytes();
    assertTrue(
        answer.length == 0 || answer[0] == ALERT,
        "expected nothing or a TLS alert, got " + answer.length + " bytes");
  }
}
