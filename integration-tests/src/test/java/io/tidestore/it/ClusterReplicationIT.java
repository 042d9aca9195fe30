package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.ops.ObjectOpsException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-copy replication between real processes (one monitor, three OSDs, pool rbd of size 3 and
 * min_size 2): every acknowledged write reads back through whichever OSD is primary after its
 * primary was killed with SIGKILL (so the replicas had it), writes keep being acknowledged with two
 * of three members, and none is with one. The monitor runs with the default heartbeat grace (6 s,
 * where the other cluster tests take 2 s), and writers keep going across the kill of the primary:
 * no client op waits 30 s or more for its answer (the issue: I/O to a PG whose primary died resumes
 * within 30 s at the default settings).
 */
class ClusterReplicationIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);

  /** The longest a client op may wait across the kill of its PG's primary. */
  private static final Duration RESUMES_WITHIN = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void acknowledgedWritesSurviveTheirPrimaryAndNothingIsAckedBelowMinSize() throws Exception {
    // No --osd-heartbeat-grace: the monitor's default.
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3, 1, List.of())) {
      int port = cluster.port();
      String monitors = cluster.monitors();
      Map<Integer, OsdProcess> byId = cluster.osds();
      try (ClusterClient client =
          ClusterClient.connect(
              List.of(new InetSocketAddress("127.0.0.1", port)),
              LinkSecurity.PLAINTEXT,
              null,
              Duration.ofSeconds(60))) {
        Random r = new Random(7);
        ClusterObjects written = new ClusterObjects("rbd");
        written.write(client, r, "a", 40);
        written.verify(client);
        client
            .setXattr("rbd", "a-0", "owner", Unpooled.wrappedBuffer(new byte[] {9}))
            .get(60, TimeUnit.SECONDS);
        assertArrayEquals(
            new byte[] {9},
            bytes(client.getXattr("rbd", "a-0", "owner").get(60, TimeUnit.SECONDS)));
        client.remove("rbd", "a-1").get(60, TimeUnit.SECONDS);
        written.removed("a-1");
        assertEquals(
            ObjectOpsException.Code.NOT_FOUND,
            ((ObjectOpsException) failure(client.stat("rbd", "a-1"))).code());

        // Kill the primary of a-0 under writes: its replicas must serve everything it
        // acknowledged, and the writes to its PGs wait for the new primaries, not 30 s.
        PoolInfo rbd = client.map().pool("rbd").orElseThrow();
        PgMapping a0 = Placement.of(client.map()).object(rbd, "a-0");
        try (VersionedWriters writers = new VersionedWriters(client, "rbd", 4, 32)) {
          assertTrue(writers.awaitAcks(100, MARK_DOWN), "writes before the kill");
          byId.get(a0.actingPrimary()).kill9();
          awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 2);
          written.verify(client);
          assertArrayEquals(
              new byte[] {9},
              bytes(client.getXattr("rbd", "a-0", "owner").get(60, TimeUnit.SECONDS)));
          long resumed = writers.acks();
          assertTrue(
              writers.awaitAcks(resumed + 100, MARK_DOWN),
              "writes go on with two members (" + writers.acks() + " acknowledged)");
          assertEquals(List.of(), writers.stopAndCheck());
          Duration stall = writers.longestWait();
          System.out.printf(
              "ClusterReplicationIT: the longest client op across the kill of osd.%d (primary of"
                  + " pg %s), default heartbeat grace: %d ms%n",
              a0.actingPrimary(), a0.pg(), stall.toMillis());
          assertTrue(stall.compareTo(RESUMES_WITHIN) < 0, "an op waited " + stall);
          assertTrue(
              stall.compareTo(Duration.ofSeconds(1)) > 0,
              "no op waited across the kill (" + stall + "): the measure missed it");
        }

        // Two of three members: writes are still acknowledged.
        written.write(client, r, "b", 20);
        written.verify(client);
      }

      // One member left, below min_size 2: a write is never acknowledged.
      int survivor = -1;
      for (var e : byId.entrySet()) {
        if (e.getValue().isAlive()) {
          survivor = survivor < 0 ? e.getKey() : survivor;
        }
      }
      byId.get(survivor).kill9();
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 1);
      try (ClusterClient client =
          ClusterClient.connect(
              List.of(new InetSocketAddress("127.0.0.1", port)),
              LinkSecurity.PLAINTEXT,
              null,
              Duration.ofSeconds(3))) {
        Throwable refused =
            failure(client.write("rbd", "c-0", 0, Unpooled.wrappedBuffer(new byte[4096])));
        assertTrue(
            refused instanceof ObjectOpsException x
                && x.code() == ObjectOpsException.Code.TRY_AGAIN,
            String.valueOf(refused));
      }
    }
  }

  private static byte[] bytes(ByteBuf b) {
    try {
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  private static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get(60, TimeUnit.SECONDS);
      throw new AssertionError("succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer in 60 s");
    }
  }
}
