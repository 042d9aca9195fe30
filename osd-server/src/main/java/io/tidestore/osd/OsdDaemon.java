package io.tidestore.osd;

import io.micrometer.core.instrument.Gauge;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.osd.admin.AdminHttpServer;
import io.tidestore.osd.cluster.ClusterSettings;
import io.tidestore.osd.cluster.OsdMembership;
import io.tidestore.osd.image.ImageCatalog;
import io.tidestore.osd.image.ImageHeaderWatch;
import io.tidestore.osd.metrics.CacheMetrics;
import io.tidestore.osd.metrics.MemoryMetrics;
import io.tidestore.osd.metrics.NettyMemory;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.metrics.OsdMetrics;
import io.tidestore.osd.metrics.ReactorMetrics;
import io.tidestore.osd.metrics.SecurityMetrics;
import io.tidestore.osd.metrics.StoreMetrics;
import io.tidestore.osd.nbd.NbdServer;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.pg.MonPgHistory;
import io.tidestore.osd.pg.PeerTls;
import io.tidestore.osd.pg.PgEngine;
import io.tidestore.osd.pg.PgTunables;
import io.tidestore.osd.protocol.ObjectProtocolServer;
import io.tidestore.osd.protocol.Op;
import io.tidestore.osd.protocol.ServerLimits;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.service.ServiceNotifier;
import io.tidestore.osd.store.MountedShards;
import io.tidestore.osd.store.ShardCaches;
import io.tidestore.osd.store.StoreAdmin;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.cache.CacheSizing;
import io.tidestore.store.engine.DeviceFormat;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryUse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One running OSD: owns the data directory's lock, the metrics, and every listener. {@link
 * #close()} stops listeners first, then flushes and releases the data directory, in reverse order
 * of start.
 */
public final class OsdDaemon implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(OsdDaemon.class.getName());

  /** The line integration tests and service scripts wait for; keep its prefix stable. */
  public static final String READY_PREFIX = "tidestore osd ready";

  private final OsdSettings settings;
  private final ClusterSettings cluster;
  private final Instant started = Instant.now();
  private final ShutdownSignal shutdownSignal = new ShutdownSignal();
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final MemoryBudget budget;
  private final InboundBudget frameBudget;
  private ServerSecurity security;
  private String ioBackend;
  private String storeLayout;
  private String journalFlush;
  private AdminHttpServer admin;
  private Reactors reactors;
  private ObjectProtocolServer objects;
  private NbdServer nbd;
  private StoreAdmin storeAdmin;
  private OsdMembership membership;
  private volatile PgEngine pgEngine;
  private final ServiceNotifier notifier = ServiceNotifier.fromEnvironment();
  private boolean notifiedReady;

  private OsdDaemon(OsdSettings settings, ClusterSettings cluster) {
    this.settings = settings;
    this.cluster = cluster;
    this.budget = new MemoryBudget(settings.memoryLimitBytes());
    this.frameBudget = new InboundBudget(settings.maxInflightFrameBytes());
  }

  /** Starts a standalone daemon: every part, or closes what was started and throws. */
  public static OsdDaemon start(OsdSettings settings) throws IOException {
    return start(settings, null);
  }

  /**
   * Starts a daemon that joins the cluster of {@code cluster}'s monitors (or a standalone one when
   * null): in a cluster it serves no NBD (the gateway will) and registers once it listens.
   */
  public static OsdDaemon start(OsdSettings settings, ClusterSettings cluster) throws IOException {
    OsdDaemon daemon = new OsdDaemon(settings, cluster);
    try {
      daemon.startParts();
      return daemon;
    } catch (IOException | RuntimeException e) {
      daemon.close();
      throw e;
    }
  }

  private void startParts() throws IOException {
    if (cluster != null && settings.engine().kind() != EngineSettings.EngineKind.REACTOR) {
      throw new IOException(
          "a cluster OSD (--mon) runs the reactor engine only so far; drop --engine "
              + settings.engine().kind().label());
    }
    // Certificates and grants first: a bad file is a startup error before anything listens.
    security = ServerSecurity.open(settings.security());
    LOG.info(
        "tidestore "
            + BuildInfo.version()
            + " osd starting: config "
            + (settings.confFile() == null ? "embedded defaults" : settings.confFile())
            + ", data "
            + settings.dataDir()
            + ", JDK "
            + BuildInfo.jdk()
            + ", pid "
            + ProcessHandle.current().pid());
    long mkfsStart = System.nanoTime();
    if (settings.device() != null) {
      if (DeviceFormat.mkfsIfEmpty(
          settings.dataDir(), settings.device(), settings.mkfsShards(), LOG::info)) {
        LOG.info(
            String.format(
                "created an object store on %s, named in %s (%.1f s)",
                settings.device(), settings.dataDir(), (System.nanoTime() - mkfsStart) / 1e9));
      }
    } else if (StoreFormat.mkfsIfEmpty(
        settings.dataDir(),
        settings.mkfsShards(),
        settings.mkfsShardBytes(),
        StoreFormat.defaultSegmentBytes(settings.mkfsShardBytes()),
        LOG::warning)) {
      LOG.info(
          String.format(
              "created an object store in the empty data directory %s: %d shards of %d bytes"
                  + " (%.1f s; --shards/--shard-size choose the geometry of a new store)",
              settings.dataDir(),
              settings.mkfsShards(),
              settings.mkfsShardBytes(),
              (System.nanoTime() - mkfsStart) / 1e9));
    }
    // The store takes the data directory's lock itself.
    LogStore store =
        LogStore.open(
            settings.dataDir(),
            StoreConfig.defaults()
                .withCleanerPolicy(settings.cleanerPolicy())
                .withJournalFlush(settings.journalFlush())
                .withOverprovisionPercent(settings.overprovisionPercent()),
            budget);
    resources.push(store);
    storeLayout = store.layout().name();
    journalFlush = store.config().journalFlush().optionName();
    LOG.info(
        "object store: "
            + store.shardCount()
            + " shards in "
            + settings.dataDir()
            + " ("
            + store.layout().name()
            + " layout), journal flush "
            + store.config().journalFlush().optionName()
            + ", "
            + settings.overprovisionPercent()
            + "% of the segments over-provisioned, cleaner "
            + settings.cleanerPolicy().label());
    MemoryFit.check(
        settings.memoryLimitBytes(),
        CacheSizing.perShardBytes(settings.cacheBytes(), store.shardCount()) * store.shardCount(),
        store.shardCount(),
        store.shardIoBytes(),
        store.shardIndexBytes());

    OsdMetrics metrics = new OsdMetrics();
    resources.push(metrics);

    Engine engine = EngineSetup.start(settings);
    resources.push(engine);
    reactors = engine.network();
    ReactorMetrics.bind(metrics.registry(), engine.kind().label(), engine.loops());
    MemoryMetrics.bind(metrics.registry(), budget);
    MemoryMetrics.bindInboundFrames(metrics.registry(), frameBudget);
    SecurityMetrics.bind(metrics.registry(), security.counters());

    ShardCaches caches =
        new ShardCaches(
            CacheSizing.perShardBytes(settings.cacheBytes(), store.shardCount()),
            settings.cachePolicy(),
            budget,
            settings.cacheWriteMaxBytes());
    MountedShards shards =
        engine.mount(store, IoQueueConfig.defaults().withBackend(settings.ioBackend()), caches);
    ioBackend = shards.ioBackend();
    Gauge.builder("tidestore.io.backend.info", () -> 1)
        .description("The store's disk I/O backend in use (label backend)")
        .tag("backend", ioBackend)
        .register(metrics.registry());
    storeAdmin = shards.admin();
    CacheMetrics.bind(metrics.registry(), storeAdmin.caches());
    resources.push(shards);
    storeAdmin.observeJournals(
        StoreMetrics.bind(metrics, store.shardCount(), storeAdmin::shardStats));
    storeAdmin.scrubSchedule(settings.scrub().intervalNanos(), settings.scrub().bytesPerSecond());
    // NBD exports; the object protocol reports header changes to them (ImageHeaderWatch).
    ImageCatalog images =
        new ImageCatalog(shards.objectOps(), shards.pieceIo(), settings.nbdDefaultImage());
    // A cluster OSD serves objects only through protocol v2, replicated (PgEngine): its store's
    // objects are its PGs', never a standalone client's.
    objects =
        ObjectProtocolServer.start(
            reactors,
            settings.listenAddress(),
            settings.objectPort(),
            cluster == null ? new ImageHeaderWatch(shards.objectOps(), images) : null,
            ServerLimits.DEFAULT,
            OpLatencies.register(
                metrics,
                "tidestore_object_op_latency_seconds",
                "Object protocol ops, request decoded to reply written, by op",
                reactors,
                Op.measuredNames()),
            frameBudget,
            security);
    resources.push(objects);
    if (cluster == null) {
      nbd =
          NbdServer.start(
              reactors,
              settings.listenAddress(),
              settings.nbdPort(),
              images,
              NbdServer.Limits.DEFAULT,
              OpLatencies.register(
                  metrics,
                  "tidestore_nbd_op_latency_seconds",
                  "NBD commands, request decoded to reply written, by command",
                  reactors,
                  NbdServer.commandNames()),
              frameBudget,
              security);
      resources.push(nbd);
    } else {
      LOG.info(
          "cluster mode: this OSD serves no NBD (a gateway will); --nbd-port "
              + settings.nbdPort()
              + " is ignored");
    }

    // Its own address (--admin-listen, loopback by default), not --listen: metrics and admin
    // operations stay on this host unless asked for, and then need a certificate.
    admin =
        AdminHttpServer.start(
            new InetSocketAddress(settings.security().adminListen(), settings.metricsPort()),
            security,
            security.adminMode(),
            metrics::scrape,
            metrics::dumpJson,
            this::statusJson,
            storeAdmin::switchCachePolicy);
    resources.push(admin);
    admin.post("/scrub", storeAdmin::startScrub);

    if (cluster != null) {
      joinCluster(metrics);
      MonPgHistory history = new MonPgHistory(membership.monitors());
      resources.push(history);
      PgEngine pgs =
          new PgEngine(
              membership.id(),
              shards.tasks(),
              membership.map(),
              PeerTls.context(settings.security()),
              membership::wantEpoch,
              metrics.registry(),
              new PgTunables(
                  cluster.deepScrubInterval(),
                  settings.scrub().bytesPerSecond(),
                  cluster.recoveryMaxActive(),
                  cluster.recoverySleep()),
              history);
      resources.push(pgs);
      pgEngine = pgs;
      membership.onNewMap(pgs::onMap);
      membership.reportPgs(pgs::report);
      pgs.onMap(membership.map());
      objects.serveCluster(pgs);
    }
    if (settings.pidFile() != null) {
      resources.push(PidFile.write(settings.pidFile(), ProcessHandle.current().pid()));
    }
    String readyLine =
        READY_PREFIX
            + ": listening on "
            + settings.listenAddress().getHostAddress()
            + " object="
            + objects.address().getPort()
            + " nbd="
            + (nbd == null ? "none" : Integer.toString(nbd.address().getPort()))
            + " metrics="
            + admin.address().getPort()
            + " io_backend="
            + ioBackend
            + " ("
            + (security.adminMode() == TlsMode.REQUIRE ? "https" : "http")
            + " /metrics /status on "
            + admin.address().getAddress().getHostAddress()
            + ") in "
            + Duration.between(started, Instant.now()).toMillis()
            + " ms; "
            + security.describe()
            + (membership == null
                ? ""
                : "; cluster osd." + membership.id() + " map epoch " + membership.map().epoch());
    LOG.info(readyLine);
    // After the ready line, as the tests and scripts that wait for the line expect: systemd
    // (Type=notify) starts what depends on the OSD only now that every listener serves.
    notifier.ready(readyLine);
    notifiedReady = true;
  }

  /** Registers with the monitors under the addresses the listeners bound. */
  private void joinCluster(OsdMetrics metrics) throws IOException {
    try {
      membership =
          OsdMembership.join(
              cluster,
              settings.dataDir(),
              MonAddresses.format(
                  new InetSocketAddress(settings.listenAddress(), objects.address().getPort())),
              MonAddresses.format(
                  new InetSocketAddress(settings.listenAddress(), admin.address().getPort())),
              metrics.registry());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while registering with the monitors", e);
    }
    resources.push(membership);
  }

  /** Blocks until SIGTERM/SIGINT or {@link #requestStop()}. */
  public void awaitShutdownSignal() throws InterruptedException {
    shutdownSignal.await();
  }

  /** Asks the daemon to stop as SIGTERM would. */
  public void requestStop() {
    shutdownSignal.trigger();
  }

  /** The bound main address of the object protocol. */
  public InetSocketAddress objectAddress() {
    return objects.address();
  }

  /** The bound metrics/status HTTP address. */
  public InetSocketAddress metricsAddress() {
    return admin.address();
  }

  private String statusJson() {
    return "{\"version\":\""
        + BuildInfo.version()
        + "\",\"pid\":"
        + ProcessHandle.current().pid()
        + ",\"state\":\"active\",\"engine\":\""
        + settings.engine().kind().label()
        + "\",\"io_backend\":\""
        + ioBackend
        + "\",\"layout\":\""
        + storeLayout
        + "\",\"journal_flush\":\""
        + journalFlush
        + "\",\"data\":\""
        + jsonEscape(settings.dataDir().toString())
        + "\",\"uptime_s\":"
        + Duration.between(started, Instant.now()).toSeconds()
        + ",\"memory\":"
        + memoryJson()
        + ",\"security\":"
        + security.statusJson()
        + ","
        + storeAdmin.statusMembers(2)
        + pgsJson()
        + "}";
  }

  /**
   * A cluster OSD's PGs by state, as its shards have loaded them: {@code
   * ,"pgs":{"active+clean":N,...}} (every PG it is primary of, and those it is a replica of once
   * their primary contacted it), or nothing for a standalone daemon.
   */
  private String pgsJson() {
    PgEngine pgs = pgEngine;
    if (pgs == null) {
      return "";
    }
    StringBuilder json =
        new StringBuilder(",\"map_epoch\":").append(pgs.epoch()).append(",\"pgs\":{");
    try {
      String sep = "";
      for (var e : new java.util.TreeMap<>(pgs.pgStates()).entrySet()) {
        json.append(sep).append('"').append(e.getKey()).append("\":").append(e.getValue());
        sep = ",";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return json.append('}').toString();
  }

  /**
   * {"limit":..,"reserved":..,"cache":..,"io_buffers":..,"index":..,"netty":..,"inbound_frames":..,
   * "inbound_frames_limit":..} in bytes.
   */
  private String memoryJson() {
    StringBuilder json =
        new StringBuilder("{\"limit\":")
            .append(budget.limitBytes())
            .append(",\"reserved\":")
            .append(budget.reservedBytes());
    for (MemoryUse use : MemoryUse.values()) {
      json.append(",\"")
          .append(MemoryMetrics.tagOf(use))
          .append("\":")
          .append(budget.reservedBytes(use));
    }
    return json.append(",\"netty\":")
        .append(NettyMemory.usedDirectBytes())
        .append(",\"inbound_frames\":")
        .append(frameBudget.reservedBytes())
        .append(",\"inbound_frames_limit\":")
        .append(frameBudget.limitBytes())
        .append('}')
        .toString();
  }

  private static String jsonEscape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
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
    LOG.info("tidestore osd stopped");
  }
}
