package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;

/**
 * Raft has no TLS (Ratis 3.2's Netty transport), so a lone monitor keeps it on loopback whatever
 * its {@code --listen}; a group uses each peer's address, port + 1.
 */
class RaftGroupSetupTest {
  private static MonSettings settings(String listenHost, List<MonMessages.Peer> peers) {
    return new MonSettings(
        "a",
        Path.of("unused"),
        new InetSocketAddress(listenHost, 6789),
        peers,
        Duration.ofSeconds(6),
        2,
        Duration.ofMinutes(10),
        FailureDomain.HOST,
        0,
        null,
        1000,
        SecuritySettings.plaintext());
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
}
