package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.local.MonPortPair;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lone monitor keeps Raft on loopback whatever its {@code --listen}; a group uses each peer's
 * address, port + 1; under TLS a real Ratis server there accepts TLS 1.3 with a client certificate
 * of the CA and nothing older.
 */
class RaftGroupSetupTest {
  @TempDir Path dir;

  private static MonSettings settings(String listenHost, List<MonMessages.Peer> peers) {
    return settings(
        Path.of("unused"),
        new InetSocketAddress(listenHost, 6789),
        peers,
        SecuritySettings.plaintext());
  }

  private static MonSettings settings(
      Path data,
      InetSocketAddress listen,
      List<MonMessages.Peer> peers,
      SecuritySettings security) {
    return new MonSettings(
        "a",
        data,
        listen,
        peers,
        Duration.ofSeconds(6),
        Duration.ofMinutes(10),
        FailureDomain.HOST,
        0,
        null,
        1000,
        security);
  }

  @Test
  void aLoneMonitorKeepsRaftOnLoopback() {
    MonSettings lone = settings("10.0.0.1", List.of(new MonMessages.Peer("a", "10.0.0.1:6789")));
    RaftPeer peer = RaftGroupSetup.group(lone).getPeers().iterator().next();
    assertEquals("127.0.0.1:6790", peer.getAddress());
    assertEquals("127.0.0.1", GrpcConfigKeys.Server.host(RaftGroupSetup.properties(lone)));
  }

  @Test
  void aGroupUsesEachPeersAddress() {
    List<MonMessages.Peer> peers =
        List.of(
            new MonMessages.Peer("a", "10.0.0.1:6789"),
            new MonMessages.Peer("b", "10.0.0.2:6789"),
            new MonMessages.Peer("c", "10.0.0.3:6789"));
    MonSettings group = settings("10.0.0.1", peers);
    List<String> addresses =
        RaftGroupSetup.group(group).getPeers().stream().map(RaftPeer::getAddress).sorted().toList();
    assertEquals(List.of("10.0.0.1:6790", "10.0.0.2:6790", "10.0.0.3:6790"), addresses);
    assertEquals("10.0.0.1", GrpcConfigKeys.Server.host(RaftGroupSetup.properties(group)));
  }

  @Test
  void raftUnderTlsAcceptsTls13OnlyAndClientsOfTheCa() throws Exception {
    Path pki = dir.resolve("pki");
    TlsInit.run(pki, List.of("127.0.0.1"), List.of("admin"), Duration.ofDays(1), note -> {});
    int port = MonPortPair.pick();
    MonSettings settings =
        settings(
            dir.resolve("mon"),
            new InetSocketAddress("127.0.0.1", port),
            List.of(new MonMessages.Peer("a", "127.0.0.1:" + port)),
            new SecuritySettings(
                TlsMode.REQUIRE,
                pki,
                true,
                TlsProvider.JDK,
                null,
                false,
                InetAddress.getLoopbackAddress()));
    SSLContext admin =
        TlsContexts.jdkClient(CertificateFiles.client(TlsInit.clientDir(pki, "admin")));
    try (RaftServer server = RaftGroupSetup.server(settings, new MapStateMachine(map -> {}))) {
      server.start();
      int raft = port + MonSettings.RAFT_PORT_OFFSET;
      assertEquals("TLSv1.3", handshake(admin, raft, "TLSv1.3"));
      SSLException old = assertThrows(SSLException.class, () -> handshake(admin, raft, "TLSv1.2"));
      assertTrue(old.getMessage().contains("protocol_version"), old.toString());
    }
  }

  /** A TLS handshake with 127.0.0.1:{@code port} offering {@code protocol} only; what it agreed. */
  private static String handshake(SSLContext context, int port, String protocol)
      throws IOException {
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.setEnabledProtocols(new String[] {protocol});
      socket.startHandshake();
      return socket.getSession().getProtocol();
    }
  }
}
