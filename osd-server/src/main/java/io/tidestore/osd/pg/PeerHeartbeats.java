package io.tidestore.osd.pg;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.ssl.SslContext;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.wire.FailureMessages;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.PeerPing;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This OSD's heartbeats to its peers (docs/cluster.md "Failure detection", Ceph's OSD heartbeats):
 * every interval it pings each heartbeat peer of its newest map ({@link MapView#heartbeatPeers})
 * with OSD_PING, over links of its own ({@link PeerLinks}, TLS as the OSD's other links have it),
 * and tells the monitors of a peer that has not answered within their grace and of one that answers
 * again, as {@link PeerHealth} decides. Its state lives on one thread of its own (ticks, maps and
 * answers all hop to it). Counts the pings peers left unanswered and shows how many peers it has
 * and reports failed.
 */
// Scheduling on its own executor: nothing to act on in those futures.
@SuppressWarnings("FutureReturnValueIgnored")
final class PeerHeartbeats implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PeerHeartbeats.class.getName());

  private final int self;
  private final FailureReporting monitors;
  private final PeerLinks links;
  private final PeerHealth health;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-osd-peer-heartbeat").unstarted(r));
  private final Counter misses;
  private final AtomicInteger peers = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private MapView view; // on the thread only

  /**
   * @param self this OSD's id
   * @param tls the client context of links to other OSDs, or null for plaintext
   * @param epochs told the epoch every answer carries (a peer's newer map is fetched)
   */
  PeerHeartbeats(
      int self,
      SslContext tls,
      Consumer<Long> epochs,
      FailureReporting monitors,
      MeterRegistry registry) {
    this.self = self;
    this.monitors = monitors;
    this.links = new PeerLinks("tidestore-osd-heartbeat-links", tls, epochs);
    this.health = new PeerHealth(monitors.interval());
    this.misses =
        Counter.builder("tidestore.osd.heartbeat.peer.misses")
            .description("Heartbeat intervals in which a peer left this OSD's ping unanswered")
            .register(registry);
    Gauge.builder("tidestore.osd.heartbeat.peers", peers, AtomicInteger::get)
        .description("OSDs this OSD heartbeats: those it shares PGs with, and its id neighbours")
        .register(registry);
    Gauge.builder("tidestore.osd.heartbeat.peers.failed", failed, AtomicInteger::get)
        .description("Heartbeat peers this OSD reports to the monitors as not answering")
        .register(registry);
  }

  /** Starts pinging, one tick per interval. */
  void start() {
    long period = monitors.interval().toNanos();
    thread.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
  }

  /** A new map: its heartbeat peers from now on. */
  void onMap(MapView next) {
    onThread(
        () -> {
          if (view != null && next.epoch() <= view.epoch()) {
            return;
          }
          view = next;
          List<PeerHealth.Peer> wanted = new ArrayList<>();
          for (int osd : next.heartbeatPeers()) {
            wanted.add(new PeerHealth.Peer(osd, next.map().osds().get(osd).upFrom()));
          }
          List<PeerHealth.Report> cancels = health.setPeers(wanted, System.nanoTime());
          cancels.forEach(this::report);
          gauges();
        });
  }

  private void tick() {
    try {
      MapView v = view;
      if (v == null) {
        return;
      }
      long now = System.nanoTime();
      Duration grace = monitors.grace().get();
      PeerHealth.Tick t = health.tick(now, grace);
      misses.increment(t.misses());
      t.overdue().forEach(links::forget);
      for (int osd : t.newlyFailed()) {
        LOG.warning(
            "osd."
                + osd
                + " has not answered heartbeats for "
                + grace.toMillis()
                + " ms; reporting it to the monitors");
      }
      t.reports().forEach(this::report);
      for (int osd : t.ping()) {
        ping(v, osd, now);
      }
      gauges();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "peer heartbeat tick failed", e);
    }
  }

  private void ping(MapView v, int osd, long sentAt) {
    OsdInfo peer = v.map().osds().get(osd);
    long upFrom = peer.upFrom();
    links
        .ping(osd, peer.address(), new PeerPing(v.epoch(), self, ownUpFrom(v), osd, sentAt))
        .whenComplete(
            (reply, failure) -> {
              long at = System.nanoTime();
              PeerPing.Reply answer =
                  failure == null
                      ? reply
                      : refusedVersion2(failure) ? new PeerPing.Reply(osd, upFrom, sentAt) : null;
              onThread(() -> answered(osd, upFrom, sentAt, at, answer));
            });
  }

  /**
   * Whether the peer's daemon answered the handshake but refused protocol version 2: it is up in
   * the map but has not started serving its PGs yet (a moment after each boot, longer on a busy
   * machine), or a new incarnation at that address boots. Its process answers, so it counts as
   * alive (a new incarnation replaces the old one in the map through its own boot).
   */
  private static boolean refusedVersion2(Throwable failure) {
    return ObjectOpsException.unwrap(failure) instanceof OpException refusal
        && refusal.status() == Status.EPROTO;
  }

  /** The answer to a ping (null: none came, or it came from another OSD at that address). */
  private void answered(int osd, long upFrom, long sentAt, long at, PeerPing.Reply reply) {
    if (reply == null || reply.osd() != osd) {
      health.pingFailed(osd, upFrom, sentAt);
      return;
    }
    PeerHealth.Report alive = health.replied(osd, upFrom, sentAt, at, monitors.grace().get());
    if (alive != null) {
      LOG.info("osd." + osd + " answers heartbeats again; telling the monitors");
      report(alive);
      gauges();
    }
  }

  private void report(PeerHealth.Report r) {
    monitors
        .report()
        .accept(
            new FailureMessages.OsdFailure(
                self, ownUpFrom(view), r.osd(), r.upFrom(), r.failedForMillis(), r.alive()));
  }

  /** This OSD's incarnation in {@code v} (it has peers only while that map shows it up). */
  private long ownUpFrom(MapView v) {
    OsdInfo me = v.map().osds().get(self);
    return me == null ? 0 : me.upFrom();
  }

  private void gauges() {
    peers.set(health.size());
    failed.set(health.reported());
  }

  private void onThread(Runnable work) {
    try {
      thread.execute(work);
    } catch (RejectedExecutionException e) {
      // Closing: the answer no longer matters.
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    links.close();
  }
}
