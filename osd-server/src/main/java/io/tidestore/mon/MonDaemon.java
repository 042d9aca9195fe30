package io.tidestore.mon;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.BuildInfo;
import io.tidestore.osd.PidFile;
import io.tidestore.osd.ShutdownSignal;
import io.tidestore.osd.admin.AdminHttpServer;
import io.tidestore.osd.metrics.OsdMetrics;
import io.tidestore.osd.metrics.SecurityMetrics;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.service.ServiceNotifier;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * One running monitor: the Ratis server with the map state machine, the client that proposes
 * through it, the monitor protocol's server, the failure detector, metrics and admin HTTP. Started
 * in that order, closed in reverse.
 */
public final class MonDaemon implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(MonDaemon.class.getName());

  /**
   * Ratis logs every setting and election step at INFO, and its Netty transport every connection:
   * warnings and errors are what an operator needs. Held here so the level is not collected.
   */
  private static final Logger RATIS_LOG = Logger.getLogger("org.apache.ratis");

  static {
    RATIS_LOG.setLevel(Level.WARNING);
  }

  /** The line tests and {@code cluster up} wait for; keep its prefix stable. */
  public static final String READY_PREFIX = "tidestore mon ready";

  /**
   * A follower the leader heard from within this long counts as in quorum: the leader sends
   * heartbeats every half election timeout (500 ms), so this is five missed in a row.
   */
  private static final long QUORUM_RPC_MILLIS = 2500;

  private final MonSettings settings;
  private final ShutdownSignal shutdownSignal = new ShutdownSignal();
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final List<Consumer<ClusterMap>> mapListeners = new CopyOnWriteArrayList<>();
  private final MapStateMachine stateMachine =
      new MapStateMachine(map -> mapListeners.forEach(l -> l.accept(map)));
  private RaftServer raft;
  private MonServer server;
  private AdminHttpServer admin;
  private final ServiceNotifier notifier = ServiceNotifier.fromEnvironment();
  private boolean notifiedReady;

  private MonDaemon(MonSettings settings) {
    this.settings = settings;
  }

  public static MonDaemon start(MonSettings settings) throws IOException {
    MonDaemon daemon = new MonDaemon(settings);
    try {
      daemon.startParts();
      return daemon;
    } catch (IOException | RuntimeException e) {
      daemon.close();
      throw e;
    }
  }

  private void startParts() throws IOException {
    Files.createDirectories(settings.dataDir());
    LOG.info(
        "tidestore "
            + BuildInfo.version()
            + " mon."
            + settings.id()
            + " starting: data "
            + settings.dataDir()
            + ", peers "
            + settings.peers()
            + ", JDK "
            + BuildInfo.jdk()
            + ", pid "
            + ProcessHandle.current().pid());
    // Certificates and grants first: a bad file stops the start before anything listens.
    ServerSecurity security = ServerSecurity.open(settings.security());
    LinkSecurity links = TlsLinks.monitor(settings.security());
    raft = RaftGroupSetup.server(settings, stateMachine);
    resources.push(raft);
    try {
      raft.start();
    } catch (java.util.concurrent.CompletionException e) {
      // e.g. another monitor holds the storage directory's lock.
      throw new IOException(
          e.getCause() == null ? e.getMessage() : e.getCause().getMessage(), e.getCause());
    }
    Proposer proposer =
        new Proposer(RaftGroupSetup.client(settings), Duration.ofSeconds(10), stateMachine);
    resources.push(proposer);
    FailureDetector detector =
        new FailureDetector(
            settings.heartbeatGrace(),
            settings.downOutInterval(),
            settings.failureDomain(),
            stateMachine::map,
            () -> info().isLeader() && info().isLeaderReady(),
            proposer);
    resources.push(detector);
    MonRequests requests = new MonRequests(stateMachine, proposer, detector, this::monStatus);
    server = MonServer.start(settings.listen(), links, security, requests);
    resources.push(server);
    mapListeners.add(detector::onMap);
    mapListeners.add(server::publish);
    detector.onMap(stateMachine.map());
    detector.start();

    OsdMetrics metrics = new OsdMetrics();
    resources.push(metrics);
    MonMetrics.bind(
        metrics.registry(), stateMachine::map, () -> info().isLeader(), this::quorumSize);
    SecurityMetrics.bind(metrics.registry(), security.counters());
    // As the OSD's: on --admin-listen (loopback by default), HTTPS with client certificates when
    // TLS is required there.
    admin =
        AdminHttpServer.start(
            new InetSocketAddress(settings.security().adminListen(), settings.metricsPort()),
            security,
            security.adminMode(),
            metrics::scrape,
            metrics::dumpJson,
            this::statusJson,
            policy -> {
              throw new IllegalStateException("a monitor has no cache");
            });
    resources.push(admin);
    if (settings.pidFile() != null) {
      resources.push(PidFile.write(settings.pidFile(), ProcessHandle.current().pid()));
    }
    String readyLine =
        READY_PREFIX
            + ": mon."
            + settings.id()
            + " listening on "
            + settings.listen().getHostString()
            + " mon="
            + server.address().getPort()
            + " raft="
            + (settings.listen().getPort() + MonSettings.RAFT_PORT_OFFSET)
            + " metrics="
            + admin.address().getPort()
            + " ("
            + (security.adminMode() == TlsMode.REQUIRE ? "https" : "http")
            + " /metrics /status); map epoch "
            + stateMachine.map().epoch()
            + "; "
            + links.describe()
            + ", raft "
            + (settings.security().tls() == TlsMode.OFF ? "plaintext" : "mutual TLS")
            + " on "
            + (settings.raftOnLoopback() ? "loopback" : settings.listen().getHostString())
            + grants();
    LOG.info(readyLine);
    notifier.ready(readyLine); // systemd's Type=notify: the monitor serves from here on
    notifiedReady = true;
  }

  /** Who may do what, for the ready line. */
  private String grants() {
    if (settings.security().authFile() != null) {
      return "; grants from " + settings.security().authFile();
    }
    return settings.security().tls() == TlsMode.OFF
        ? "; every client may do everything"
        : "; every client of the CA may do everything";
  }

  private DivisionInfo info() {
    try {
      return raft.getDivision(RaftGroupSetup.GROUP_ID).getInfo();
    } catch (IOException e) {
      throw new IllegalStateException("the monitor group is not running", e);
    }
  }

  /** The followers the leader heard from recently, and itself; empty when not the leader. */
  private List<String> quorum() {
    DivisionInfo info = info();
    List<String> quorum = new ArrayList<>();
    if (!info.isLeader()) {
      return quorum;
    }
    quorum.add(settings.id());
    RaftProtos.RoleInfoProto role = info.getRoleInfoProto();
    for (RaftProtos.ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
      if (follower.getLastRpcElapsedTimeMs() < QUORUM_RPC_MILLIS) {
        quorum.add(follower.getId().getId().toStringUtf8());
      }
    }
    quorum.sort(null);
    return quorum;
  }

  private int quorumSize() {
    return quorum().size();
  }

  MonMessages.MonStatus monStatus() {
    DivisionInfo info = info();
    return new MonMessages.MonStatus(
        settings.id(),
        info.getCurrentRole().name().toLowerCase(Locale.ROOT),
        info.getLeaderId() == null ? "" : info.getLeaderId().toString(),
        info.getCurrentTerm(),
        stateMachine.map().epoch(),
        settings.peers(),
        quorum());
  }

  private String statusJson() {
    MonMessages.MonStatus status = monStatus();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("daemon", "mon");
    json.put("id", status.id());
    json.put("version", BuildInfo.version());
    json.put("pid", ProcessHandle.current().pid());
    json.put("role", status.role());
    json.put("leader", status.leaderId());
    json.put("term", status.term());
    json.put("epoch", status.epoch());
    json.put("quorum", status.quorum());
    json.put("fsid", stateMachine.map().fsid().toString());
    try {
      return new ObjectMapper().writeValueAsString(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The bound monitor protocol address. */
  public InetSocketAddress address() {
    return server.address();
  }

  public void awaitShutdownSignal() throws InterruptedException {
    shutdownSignal.await();
  }

  public void requestStop() {
    shutdownSignal.trigger();
  }

  @Override
  public void close() {
    if (notifiedReady) {
      notifier.stopping();
    }
    while (!resources.isEmpty()) {
      AutoCloseable resource = resources.pop();
      try {
        resource.close();
      } catch (Exception e) {
        LOG.log(Level.WARNING, "closing " + resource.getClass().getSimpleName() + " failed", e);
      }
    }
    LOG.info("tidestore mon." + settings.id() + " stopped");
  }
}
