package io.tidestore.mon;

import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.osd.security.TlsMode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.grpc.GrpcUtil;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.ClientAuth;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContext;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContextBuilder;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis configuration of the monitors: one fixed group of the {@code --peers}, Ratis' gRPC
 * transport between them on each monitor's port + 1 (its only transport with TLS for Raft itself:
 * under {@code --tls on|require} mutual TLS 1.3 with the monitors' certificates, as every other
 * cluster link; a lone monitor keeps it on loopback), election timeouts that tolerate a busy 2-core
 * machine, and snapshots every {@code snapshotThreshold} entries with the log purged up to them.
 */
final class RaftGroupSetup {
  /** Every Tidestore monitor group has this id: one group per set of monitors. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("tidestore-mon".getBytes(StandardCharsets.UTF_8)));

  /** Where a lone monitor's Raft listens ({@link MonSettings#raftOnLoopback}). */
  private static final String LOOPBACK = "127.0.0.1";

  private RaftGroupSetup() {}

  static RaftGroup group(MonSettings settings) {
    List<RaftPeer> raftPeers = new ArrayList<>();
    for (MonMessages.Peer peer : settings.peers()) {
      String address =
          settings.raftOnLoopback()
              ? LOOPBACK + ":" + (settings.listen().getPort() + MonSettings.RAFT_PORT_OFFSET)
              : raftAddress(peer.address());
      raftPeers.add(RaftPeer.newBuilder().setId(peer.id()).setAddress(address).build());
    }
    return RaftGroup.valueOf(GROUP_ID, raftPeers);
  }

  /** host:port of the monitor protocol to host:(port+1) of Raft. */
  static String raftAddress(String monAddress) {
    int colon = monAddress.lastIndexOf(':');
    int port = Integer.parseInt(monAddress.substring(colon + 1));
    return monAddress.substring(0, colon + 1) + (port + MonSettings.RAFT_PORT_OFFSET);
  }

  static RaftProperties properties(MonSettings settings) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(
        properties, settings.raftOnLoopback() ? LOOPBACK : settings.listen().getHostString());
    // One port for Raft, the monitors' Raft clients and Ratis' admin service.
    GrpcConfigKeys.Server.setPort(
        properties, settings.listen().getPort() + MonSettings.RAFT_PORT_OFFSET);
    RaftServerConfigKeys.setStorageDir(
        properties, List.of(new File(settings.dataDir().resolve("ratis").toString())));
    // Ratis' 150-300 ms elections misfire when a GC pause or two busy cores delay a heartbeat.
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        properties, TimeDuration.valueOf(1000, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        properties, TimeDuration.valueOf(2000, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(3000, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, settings.snapshotThreshold());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgeGap(properties, 1);
    // Small segments, so that purging after a snapshot frees them (a map change is ~100 bytes).
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("1MB"));
    RaftServerConfigKeys.Log.setPreallocatedSize(properties, SizeInBytes.valueOf("64KB"));
    return properties;
  }

  /**
   * The TLS of Raft: none under {@code --tls off}; else mutual TLS with this monitor's server
   * certificate (also its client certificate, as {@code tls init} issues it) and the cluster's CA,
   * the server accepting TLS 1.3 only ({@link #tls13Only}).
   */
  static Parameters parameters(MonSettings settings) throws IOException {
    Parameters parameters = new Parameters();
    if (settings.security().tls() != TlsMode.OFF) {
      CertificateFiles files = CertificateFiles.server(settings.security().certificates());
      GrpcTlsConfig tls =
          new GrpcTlsConfig(
              files.key().toFile(), files.certificate().toFile(), files.ca().toFile(), true);
      GrpcConfigKeys.Server.setTlsConf(parameters, tls);
      GrpcConfigKeys.Client.setTlsConf(parameters, tls);
      GrpcConfigKeys.Admin.setTlsConf(parameters, tls);
      GrpcConfigKeys.Server.setServicesCustomizer(
          parameters, (builder, services) -> builder.sslContext(tls13Only(tls)));
    }
    return parameters;
  }

  /**
   * The server TLS context Ratis builds from {@code tls} (its construction in GrpcServicesImpl:
   * gRPC's ciphers and ALPN, shaded BoringSSL, client certificates required), but TLS 1.3 only, as
   * every other listener: GrpcTlsConfig has no protocol setting, so the services customizer, which
   * Ratis calls on each server builder after setting its own context, replaces that context. The
   * Raft clients keep Ratis' context (GrpcTlsConfig only): they offer 1.2 and 1.3, and every server
   * they reach is a monitor's, which accepts only 1.3.
   */
  static SslContext tls13Only(GrpcTlsConfig tls) {
    SslContextBuilder builder = GrpcUtil.initSslContextBuilderForServer(tls.getKeyManager());
    builder.clientAuth(ClientAuth.REQUIRE);
    GrpcUtil.setTrustManager(builder, tls.getTrustManager());
    try {
      return GrpcSslContexts.configure(builder, SslProvider.OPENSSL)
          .protocols(TlsContexts.PROTOCOL)
          .build();
    } catch (SSLException e) {
      throw new IllegalArgumentException("Raft's TLS context: " + e.getMessage(), e);
    }
  }

  static RaftServer server(MonSettings settings, MapStateMachine stateMachine) throws IOException {
    return RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(settings.id()))
        .setGroup(group(settings))
        .setStateMachine(stateMachine)
        .setProperties(properties(settings))
        .setParameters(parameters(settings))
        // RECOVER formats a missing storage directory and reuses an existing one.
        .setOption(RaftStorage.StartupOption.RECOVER)
        .build();
  }

  /** The client a monitor proposes through; it finds the leader and follows elections itself. */
  static RaftClient client(MonSettings settings) throws IOException {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    Parameters parameters = parameters(settings);
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(group(settings))
        .setLeaderId(null)
        .setClientRpc(new GrpcFactory(parameters).newRaftClientRpc(ClientId.randomId(), properties))
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                100, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
        .build();
  }
}
