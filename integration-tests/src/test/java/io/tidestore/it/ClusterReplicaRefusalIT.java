package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.createPool;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.osd.ops.ObjectOpsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that refuses a replicated op (here its store is full) must not let the op be
 * acknowledged: one monitor, two OSDs, pool {@code p} of size 2 and min_size 1 with one PG; the
 * PG's replica is filled up through a pool of size 1, then a write to {@code p} is sent. Whatever
 * the client is told, once the primary is killed the replica alone must serve every write that was
 * acknowledged.
 */
class ClusterReplicaRefusalIT {
  @TempDir Path dir;

  @Test
  void aWriteTheReplicaRefusedIsNotAcknowledgedUntilTheReplicaHasIt() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 2)) {
      createPool(cluster.monitors(), "p", 2, 1, 1);
      createPool(cluster.monitors(), "fill", 1, 1, 16);
      try (ClusterClient client = cluster.client(Duration.ofMinutes(2))) {
        assertTrue(client.awaitMap(m -> m.pool("fill").isPresent(), Duration.ofSeconds(30)));
        Placement placement = Placement.of(client.map());
        PgMapping p = placement.object(client.map().pool("p").orElseThrow(), "x");
        int replica = p.acting().get(1);
        OsdProcess primary = cluster.osds().get(p.actingPrimary());
        List<String> filled = fill(client, placement, replica);

        byte[] data = new byte[16 << 10];
        Arrays.fill(data, (byte) 7);
        CompletableFuture<Void> write = client.write("p", "x", 0, Unpooled.wrappedBuffer(data));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!write.isDone()
            && !primary.awaitCountContaining("refused", 1, ClusterProcesses.POLL)) {
          assertTrue(System.nanoTime() < deadline, "neither acknowledged nor refused");
        }
        for (String name : filled) { // room again: recovery can now bring x to the replica
          client.remove("fill", name).get(60, TimeUnit.SECONDS);
        }
        write.get(120, TimeUnit.SECONDS);

        primary.kill9();
        assertTrue(
            client.awaitMap(m -> !m.osds().get(p.actingPrimary()).up(), Duration.ofSeconds(30)));
        ByteBuf got = client.read("p", "x", 0, data.length).get(60, TimeUnit.SECONDS);
        try {
          assertArrayEquals(data, ByteBufUtil.getBytes(got), "the acknowledged write");
        } finally {
          got.release();
        }
      }
    }
  }

  /** Writes 64 KiB objects of pool {@code fill} that live on {@code osd} until it is full. */
  private static List<String> fill(ClusterClient client, Placement placement, int osd)
      throws Exception {
    PoolInfo fill = placement.map().pool("fill").orElseThrow();
    byte[] block = new byte[64 << 10];
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      String name = "f-" + i;
      if (placement.object(fill, name).actingPrimary() != osd) {
        continue;
      }
      try {
        client.write("fill", name, 0, Unpooled.wrappedBuffer(block)).get(60, TimeUnit.SECONDS);
        names.add(name);
      } catch (ExecutionException e) {
        assertTrue(
            ObjectOpsException.is(e.getCause(), ObjectOpsException.Code.NO_SPACE),
            String.valueOf(e.getCause()));
        return names;
      }
    }
    throw new AssertionError("osd." + osd + " never filled up");
  }
}
