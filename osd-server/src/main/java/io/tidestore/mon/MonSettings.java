package io.tidestore.mon;

import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A monitor's settings after the command line was checked.
 *
 * @param id this monitor's id (Ratis peer id), e.g. {@code a}
 * @param dataDir where Ratis keeps its log and the map snapshots
 * @param listen the monitor protocol's address; Raft between monitors uses the next port
 * @param peers every monitor of the group, this one included (one entry for a lone monitor)
 * @param heartbeatGrace an OSD without heartbeats this long is marked down
 * @param downOutInterval an OSD down this long is marked out
 * @param failureDomain the failure domain of pool rbd and of pools created without one
 * @param metricsPort admin HTTP port (/metrics, /status); 0 picks a free one
 * @param pidFile written once ready, or null
 * @param snapshotThreshold log entries between snapshots (the log is purged up to a snapshot)
 * @param security TLS of the monitor protocol and the admin HTTP, the grants ({@code --auth-file})
 */
public record MonSettings(
    String id,
    Path dataDir,
    InetSocketAddress listen,
    List<MonMessages.Peer> peers,
    Duration heartbeatGrace,
    Duration downOutInterval,
    FailureDomain failureDomain,
    int metricsPort,
    Path pidFile,
    long snapshotThreshold,
    SecuritySettings security) {

  /** Ceph's monitor port. */
  public static final int DEFAULT_PORT = 6789;

  /** Raft between monitors runs on the monitor port plus this. */
  public static final int RAFT_PORT_OFFSET = 1;

  /** The admin HTTP port of a monitor: next to the OSD's default 9283. */
  public static final int DEFAULT_METRICS_PORT = 9284;

  public MonSettings {
    peers = List.copyOf(peers);
  }

  /**
   * Whether Raft between monitors stays on loopback: a lone monitor talks Raft only to itself (its
   * proposer), so it binds and dials Raft on 127.0.0.1 whatever {@code listen} is. Ratis 3.2's
   * Netty transport has no TLS, so this keeps a lone monitor's Raft port off the network.
   */
  public boolean raftOnLoopback() {
    return peers.size() == 1;
  }
}
