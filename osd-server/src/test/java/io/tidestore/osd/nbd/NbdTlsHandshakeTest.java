package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NBD_OPT_STARTTLS and the options around it, as nbdkit answers them, and the caps of a client
 * without a certificate; the TLS session itself is driven by real clients in the integration tests
 * (NbdTlsIT).
 */
class NbdTlsHandshakeTest {
  @TempDir Path dir;

  private final MemoryImage disk = new MemoryImage("disk", 1 << 20, false);
  private ServerSecurity security;

  private NbdTestWire connect(TlsMode mode, String authFile) throws Exception {
    if (mode == TlsMode.OFF) {
      security = ServerSecurity.plaintext();
    } else {
      TlsInit.run(dir, List.of("127.0.0.1"), List.of(), Duration.ofDays(1), note -> {});
      Path auth = null;
      if (authFile != null) {
        auth = Files.writeString(dir.resolve("auth"), authFile, StandardCharsets.UTF_8);
      }
      security =
          ServerSecurity.open(
              new SecuritySettings(
                  mode,
                  dir,
                  false,
                  TlsProvider.JDK,
                  auth,
                  false,
                  InetAddress.getLoopbackAddress()));
    }
    return new NbdTestWire(
            new EmbeddedChannel(
                new NbdHandshakeHandler(
                    new MemoryExports("disk", disk),
                    NbdServer.Limits.DEFAULT,
                    OpLatencies.NONE,
                    new InboundBudget(InboundBudget.DEFAULT_BYTES),
                    security,
                    NbdServer.POOL)))
        .greeted();
  }

  @Test
  void tlsOffRefusesStartTlsByPolicyAndGoesOnInClear() throws Exception {
    NbdTestWire wire = connect(TlsMode.OFF, null);
    wire.option(Nbd.OPT_STARTTLS, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ERR_POLICY);
    wire.go("disk");
    assertNull(wire.ch.pipeline().get(SslHandler.class));
  }

  @Test
  void requireRefusesEveryOptionButStartTlsAndAbortBeforeTls() throws Exception {
    NbdTestWire wire = connect(TlsMode.REQUIRE, null);
    wire.option(Nbd.OPT_LIST, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_LIST, Nbd.REP_ERR_TLS_REQD);
    wire.option(Nbd.OPT_INFO, NbdTestWire.name("disk"));
    wire.optionReply(Nbd.OPT_INFO, Nbd.REP_ERR_TLS_REQD);
    wire.option(Nbd.OPT_STRUCTURED_REPLY, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_STRUCTURED_REPLY, Nbd.REP_ERR_TLS_REQD);
    wire.option(Nbd.OPT_GO, NbdTestWire.name("disk"));
    wire.optionReply(Nbd.OPT_GO, Nbd.REP_ERR_TLS_REQD);
    wire.option(Nbd.OPT_STARTTLS, Unpooled.buffer().writeByte(1));
    wire.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ERR_INVALID);
    assertTrue(wire.ch.isOpen());
    // EXPORT_NAME has no error reply: the connection closes.
    wire.option(Nbd.OPT_EXPORT_NAME, Unpooled.copiedBuffer("disk", StandardCharsets.UTF_8));
    assertFalse(wire.out().isReadable());
    assertFalse(wire.ch.isOpen());
  }

  @Test
  void startTlsAcksInClearThenPutsTlsInFront() throws Exception {
    NbdTestWire wire = connect(TlsMode.REQUIRE, null);
    wire.option(Nbd.OPT_STARTTLS, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ACK);
    assertNotNull(wire.ch.pipeline().get(SslHandler.class));
    assertEquals(List.of("tls", "tls-watch"), wire.ch.pipeline().names().subList(0, 2));
    assertTrue(wire.ch.isOpen());
  }

  @Test
  void aFailedTlsHandshakeAfterStartTlsIsCountedAndCloses() throws Exception {
    NbdTestWire garbage = connect(TlsMode.REQUIRE, null);
    garbage.option(Nbd.OPT_STARTTLS, Unpooled.EMPTY_BUFFER);
    garbage.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ACK);
    garbage.ch.writeInbound(Unpooled.copiedBuffer("not a TLS record", StandardCharsets.US_ASCII));
    assertFalse(garbage.ch.isOpen());
    assertEquals(1, security.counters().handshakeFailures());

    NbdTestWire cut = connect(TlsMode.REQUIRE, null);
    cut.option(Nbd.OPT_STARTTLS, Unpooled.EMPTY_BUFFER);
    cut.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ACK);
    cut.ch.close(); // the client hangs up before its ClientHello is complete
    assertEquals(1, security.counters().handshakeFailures(), "a handshake cut short counts too");
  }

  @Test
  void bytesSentAfterStartTlsBeforeItsAckClose() throws Exception {
    NbdTestWire wire = connect(TlsMode.ON, null);
    ByteBuf both = Unpooled.buffer().writeLong(Nbd.IHAVEOPT).writeInt(Nbd.OPT_STARTTLS);
    both.writeInt(0).writeLong(Nbd.IHAVEOPT).writeInt(Nbd.OPT_LIST).writeInt(0);
    wire.ch.writeInbound(both);
    wire.optionReply(Nbd.OPT_STARTTLS, Nbd.REP_ACK);
    assertFalse(wire.ch.isOpen());
  }

  @Test
  void aClientWithoutCertificateSeesNothingWhenThereIsAnAuthFile() throws Exception {
    NbdTestWire wire = connect(TlsMode.ON, "reader allow r\n");
    wire.option(Nbd.OPT_LIST, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_LIST, Nbd.REP_ACK); // no NBD_REP_SERVER: disk is not listed
    wire.option(Nbd.OPT_INFO, NbdTestWire.name("disk"));
    wire.optionReply(Nbd.OPT_INFO, Nbd.REP_ERR_POLICY);
    wire.option(Nbd.OPT_GO, NbdTestWire.name(""));
    wire.optionReply(Nbd.OPT_GO, Nbd.REP_ERR_POLICY);
    wire.option(Nbd.OPT_GO, NbdTestWire.name("missing"));
    wire.optionReply(Nbd.OPT_GO, Nbd.REP_ERR_POLICY); // not ERR_UNKNOWN: nothing is revealed
    assertTrue(wire.ch.isOpen());
  }

  @Test
  void withoutAnAuthFileEveryClientMayDoEverything() throws Exception {
    NbdTestWire wire = connect(TlsMode.ON, null);
    int flags = wire.go("disk");
    assertEquals(0, flags & Nbd.FLAG_READ_ONLY);
  }
}
