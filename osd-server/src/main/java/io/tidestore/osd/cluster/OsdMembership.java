package io.tidestore.osd.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.pgstats.PgReport;
import io.tidestore.cluster.wire.MonMessages;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A running OSD's place in the cluster: it boots with the monitors (which allocate or confirm its
 * id and mark it up), then on one thread of its own heartbeats every monitor (each heartbeat
 * carrying the report of the PGs it is primary of), keeps its map subscription alive, fetches the
 * map when a monitor says it is behind, and boots again when the map says it is down while it runs
 * (Ceph's "wrongly marked me down").
 */
public final class OsdMembership implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(OsdMembership.class.getName());

  /** How long a boot may wait for the monitors (they may still be electing a leader). */
  private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(60);

  private final ClusterSettings settings;
  private final MonClient monitors;
  private final String address;
  private final String adminAddress;
  private final Counter heartbeatMisses;
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-osd-heartbeat").unstarted(r));
  private volatile OsdIdentity identity;
  private volatile long upFrom;
  private volatile java.util.function.Supplier<PgReport> pgReport = () -> PgReport.NONE;
  private final java.util.List<java.util.function.Consumer<ClusterMap>> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicBoolean fetching =
      new java.util.concurrent.atomic.AtomicBoolean();

  private OsdMembership(
      ClusterSettings settings,
      OsdIdentity identity,
      String address,
      String adminAddress,
      MeterRegistry registry) {
    this.settings = settings;
    this.identity = identity;
    this.address = address;
    this.adminAddress = adminAddress;
    this.monitors = new MonClient(settings.monitors(), settings.links(), BOOT_TIMEOUT);
    this.heartbeatMisses =
        Counter.builder("tidestore.osd.heartbeat.misses")
            .description("Heartbeats to a monitor that it did not acknowledge in time")
            .register(registry);
    Gauge.builder("tidestore.osd.map.epoch", monitors, m -> m.map().epoch())
        .description("Epoch of the newest cluster map this OSD has")
        .register(registry);
  }

  /**
   * Registers with the monitors and starts heartbeating.
   *
   * @param address the object protocol's bound host:port
   * @param adminAddress the admin HTTP's bound host:port
   */
  public static OsdMembership join(
      ClusterSettings settings,
      Path dataDir,
      String address,
      String adminAddress,
      MeterRegistry registry)
      throws IOException, InterruptedException {
    OsdIdentity identity = OsdIdentity.load(dataDir);
    if (settings.requestedId() >= 0
        && identity.id() >= 0
        && identity.id() != settings.requestedId()) {
      throw new IOException(
          dataDir
              + " is osd."
              + identity.id()
              + " (its whoami file), not osd."
              + settings.requestedId()
              + " as --id says; use an empty directory for a new OSD");
    }
    OsdMembership membership =
        new OsdMembership(settings, identity, address, adminAddress, registry);
    try {
      membership.boot();
      membership.monitors.subscribe(membership::onMap);
      long period = settings.heartbeatInterval().toMillis();
      membership.heartbeats.scheduleAtFixedRate(
          membership::beat, period, period, TimeUnit.MILLISECONDS);
      return membership;
    } catch (IOException | InterruptedException | RuntimeException e) {
      membership.close();
      throw e;
    }
  }

  /** This OSD's id. */
  public int id() {
    return identity.id();
  }

  /** The newest map it has. */
  public ClusterMap map() {
    return monitors.map();
  }

  /** Its client of the monitors (it stays open as long as this membership). */
  public MonClient monitors() {
    return monitors;
  }

  private void boot() throws IOException, InterruptedException {
    int requested = settings.requestedId() >= 0 ? settings.requestedId() : identity.id();
    MonMessages.BootReply reply =
        monitors.boot(
            new MonMessages.Boot(
                identity.clusterFsid(),
                new MapCommand.Boot(
                    requested,
                    identity.uuid(),
                    settings.host(),
                    settings.weight(),
                    address,
                    adminAddress,
                    0)));
    identity = identity.registered(reply.osdId(), reply.fsid());
    upFrom = reply.upFrom();
    LOG.info(
        "registered with the monitors as osd."
            + reply.osdId()
            + " (cluster "
            + reply.fsid()
            + ", up from epoch "
            + reply.upFrom()
            + ", host "
            + settings.host()
            + ")");
  }

  /** What each heartbeat reports of this OSD's PGs from now on (its PG engine's newest report). */
  public void reportPgs(java.util.function.Supplier<PgReport> report) {
    pgReport = report;
  }

  /** Tells {@code listener} of every newer map from now on (on the membership's threads). */
  public void onNewMap(java.util.function.Consumer<ClusterMap> listener) {
    listeners.add(listener);
  }

  /**
   * Fetches the monitors' newest map soon, when {@code epoch} is newer than this OSD's (a peer or
   * client named it); its listeners hear of it. Asks once at a time.
   */
  public void wantEpoch(long epoch) {
    if (epoch <= monitors.map().epoch() || !fetching.compareAndSet(false, true)) {
      return;
    }
    heartbeats.execute(
        () -> {
          try {
            publish(monitors.fetchMap());
          } catch (IOException e) {
            LOG.warning("monitors: cannot fetch map " + epoch + ": " + e.getMessage());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            fetching.set(false);
          }
        });
  }

  private void publish(ClusterMap map) {
    for (var listener : listeners) {
      try {
        listener.accept(map);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "map listener failed", e);
      }
    }
  }

  private void onMap(ClusterMap map) {
    publish(map);
    OsdInfo me = map.osds().get(identity.id());
    LOG.fine(
        "map epoch "
            + map.epoch()
            + ": "
            + map.osds().size()
            + " osds, "
            + map.numUp()
            + " up, "
            + map.numIn()
            + " in");
    if (me != null && !me.up() && me.upFrom() == upFrom) {
      LOG.warning("map epoch " + map.epoch() + " marks this OSD down while it runs; booting again");
    }
  }

  private void beat() {
    try {
      int misses =
          monitors.heartbeat(
              new MonMessages.Heartbeat(identity.id(), upFrom, pgReport.get()),
              settings.heartbeatInterval());
      if (misses > 0) {
        heartbeatMisses.increment(misses);
      }
      monitors.keepSubscribed();
      if (monitors.newerEpochKnown()) {
        publish(monitors.fetchMap());
      }
      ClusterMap map = monitors.map();
      OsdInfo me = map.osds().get(identity.id());
      if (me != null && map.epoch() >= upFrom && (!me.up() || me.upFrom() != upFrom)) {
        boot();
      }
    } catch (IOException e) {
      LOG.warning("monitors: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "heartbeat failed", e);
    }
  }

  @Override
  public void close() {
    heartbeats.shutdownNow();
    monitors.close();
  }
}
