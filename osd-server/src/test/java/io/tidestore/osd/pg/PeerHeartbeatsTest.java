package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.placement.TestMaps;
import io.tidestore.cluster.wire.FailureMessages.OsdFailure;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.ops.ClusterOps;
import io.tidestore.osd.ops.PeerPing;
import io.tidestore.osd.protocol.ObjectProtocolServer;
import io.tidestore.osd.protocol.ServerLimits;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Peer heartbeats over real sockets: this OSD (osd.0) pings three peers served by real object
 * protocol servers (two of version 2, OSD_PING answered by stand-in ClusterOps, one that refuses
 * version 2 as an OSD does until it serves its PGs); one peer stops answering (its pings are held,
 * as a stopped process's would be) and is reported failed to the "monitors" once the grace passed,
 * the others never are; the silent one answers again and is reported alive. The answers' epoch
 * reaches the OSD's map follower, and the metrics count the misses.
 */
class PeerHeartbeatsTest {
  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration GRACE = Duration.ofMillis(800);

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /**
   * A peer that answers pings as OSD {@code id} of incarnation 3 with map epoch 7, or holds them.
   */
  private static final class Peer {
    final int id;
    volatile boolean paused;
    final List<CompletableFuture<PeerPing.Reply>> held = new CopyOnWriteArrayList<>();
    final AtomicInteger answered = new AtomicInteger();

    Peer(int id) {
      this.id = id;
    }

    ClusterOps ops() {
      return (ClusterOps)
          Proxy.newProxyInstance(
              ClusterOps.class.getClassLoader(),
              new Class<?>[] {ClusterOps.class},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "epoch" -> 7L;
                    case "ping" -> answer((PeerPing) args[0]);
                    case "toString" -> "peer osd." + id;
                    default -> throw new UnsupportedOperationException(method.getName());
                  });
    }

    private CompletableFuture<PeerPing.Reply> answer(PeerPing ping) {
      CompletableFuture<PeerPing.Reply> reply = new CompletableFuture<>();
      if (paused) {
        held.add(reply);
      } else {
        answered.incrementAndGet();
        reply.complete(new PeerPing.Reply(id, 3, ping.stamp()));
      }
      return reply;
    }

    void resume() {
      paused = false;
      held.forEach(r -> r.complete(new PeerPing.Reply(id, 3, 0)));
    }
  }

  /** A server answering as {@code peer}, or, for null, one that speaks version 1 only. */
  private String serve(Reactors reactors, Peer peer) throws Exception {
    ObjectProtocolServer server =
        ObjectProtocolServer.start(
            reactors, InetAddress.getLoopbackAddress(), 0, null, ServerLimits.DEFAULT);
    open.add(server);
    if (peer != null) {
      server.serveCluster(peer.ops());
    }
    return "127.0.0.1:" + server.address().getPort();
  }

  private static OsdInfo osd(int id, String address, long upFrom) {
    return new OsdInfo(
        id, new UUID(1, id), "h" + id, 1, address, "127.0.0.1:9", true, true, upFrom, 0);
  }

  private static void await(BooleanSupplier until, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!until.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "never: " + what);
      Thread.sleep(20);
    }
  }

  @Test
  void aSilentPeerIsReportedFailedAfterTheGraceAndAliveWhenItAnswersAgain() throws Exception {
    Reactors reactors =
        Reactors.start(Transport.EPOLL, new int[] {CpuAllocator.UNPINNED}, Optional.empty());
    open.add(reactors);
    Peer one = new Peer(1);
    Peer two = new Peer(2);
    // osd.3 is up in the map but does not serve version 2 yet (it is starting): its refusal of
    // the handshake shows it alive.
    ClusterMap map =
        TestMaps.map(
            List.of(
                osd(0, "127.0.0.1:1", 1),
                osd(1, serve(reactors, one), 3),
                osd(2, serve(reactors, two), 3),
                osd(3, serve(reactors, null), 3)),
            List.of(TestMaps.pool(1, 4, 2, 1, FailureDomain.OSD)));
    List<OsdFailure> reports = new CopyOnWriteArrayList<>();
    List<Long> epochs = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PeerHeartbeats heartbeats =
        new PeerHeartbeats(
            0,
            null,
            epochs::add,
            new FailureReporting(INTERVAL, () -> GRACE, reports::add),
            registry);
    open.add(heartbeats);
    heartbeats.onMap(MapView.of(map, 0));
    heartbeats.start();

    await(() -> gauge(registry, "tidestore.osd.heartbeat.peers") == 3, "three peers");
    await(() -> epochs.contains(7L), "an answer's epoch");
    // The first links of a cold JVM may take longer than this test's short grace: what counts is
    // that, once both answer, neither is reported. A third ping goes out only once the answer to
    // the second was taken in (one ping at a time), so any alive report is sent by then.
    await(() -> one.answered.get() >= 3 && two.answered.get() >= 3, "both answered");
    assertEquals(0, gauge(registry, "tidestore.osd.heartbeat.peers.failed"));
    reports.clear();
    Thread.sleep(2 * GRACE.toMillis());
    assertTrue(reports.isEmpty(), "peers that answer are never reported: " + reports);

    two.paused = true;
    long paused = System.nanoTime();
    await(() -> reports.stream().anyMatch(r -> r.target() == 2 && !r.alive()), "osd.2 reported");
    // Silence counts from the sending of the last ping answered, up to an interval before the
    // pause.
    assertTrue(
        System.nanoTime() - paused >= GRACE.minus(INTERVAL).toNanos(), "not before the grace");
    OsdFailure failed = reports.get(0);
    assertEquals(new OsdFailure(0, 1, 2, 3, failed.failedForMillis(), false), failed);
    assertTrue(failed.failedForMillis() >= GRACE.toMillis(), failed.toString());
    await(() -> reports.size() >= 3, "renewals");
    assertTrue(reports.stream().allMatch(r -> r.target() == 2), "the others answer: " + reports);
    assertEquals(1, gauge(registry, "tidestore.osd.heartbeat.peers.failed"));
    assertTrue(registry.get("tidestore.osd.heartbeat.peer.misses").counter().count() >= 3);

    two.resume();
    await(() -> reports.contains(OsdFailure.alive(0, 1, 2, 3)), "osd.2 reported alive");
    await(() -> gauge(registry, "tidestore.osd.heartbeat.peers.failed") == 0, "none failed");
    int after = reports.size();
    Thread.sleep(2 * GRACE.toMillis());
    assertEquals(after, reports.size(), "nothing more to report: " + reports);
  }

  private static double gauge(SimpleMeterRegistry registry, String name) {
    return registry.get(name).gauge().value();
  }
}
