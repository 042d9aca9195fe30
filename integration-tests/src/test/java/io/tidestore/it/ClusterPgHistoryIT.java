package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitActiveClean;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.client;
import static io.tidestore.it.ClusterProcesses.createPool;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PG does not serve from a copy that missed acknowledged writes, even when that copy is all that
 * is up (docs/cluster.md "PG history"). One monitor, three OSDs, a pool of size 2 and min_size 1:
 * every object is written; one OSD is killed and every object written again (acknowledged by the
 * other two alone); those two are killed and the first comes back alone. Its copies are older than
 * what was acknowledged, so its PGs must stay down, not serve them: a read waits. Once the other
 * two are back, that same read returns the newer data. Seen failing without the activation record:
 * the read returned the older data at once.
 */
class ClusterPgHistoryIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);
  private static final int OBJECTS = 12;

  @TempDir Path dir;

  @Test
  void aCopyThatMissedWritesDoesNotServeAlone() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      String monitors = cluster.monitors();
      Map<Integer, OsdProcess> byId = cluster.osds();
      createPool(monitors, "hist", 2, 1, 8);
      List<Integer> ids = new ArrayList<>(byId.keySet());
      int stale = ids.get(0);
      try (ClusterClient client = client(cluster.port())) {
        writeAll(client, 1);
        byId.get(stale).kill9();
        awaitStatus(monitors, MARK_DOWN, s -> upOsds(s) == 2);
        writeAll(client, 2); // acknowledged by the two others alone
      }
      for (int id : ids.subList(1, ids.size())) {
        byId.get(id).kill9();
      }
      awaitStatus(monitors, MARK_DOWN, s -> upOsds(s) == 0);
      OsdProcess back = startOsd(cluster.data().get(stale), monitors);
      byId.put(stale, back);
      assertEquals(stale, awaitRegistered(back));
      awaitStatus(monitors, MARK_DOWN, s -> upOsds(s) == 1);
      // Its PGs know they missed an activation: down, as Ceph says, not serving their old copies.
      back.awaitLine("is down: it was last activated", MARK_DOWN);
      awaitStatus(monitors, MARK_DOWN, s -> count(s, "down") > 0);
      try (ClusterClient client = client(cluster.port())) {
        List<CompletableFuture<ByteBuf>> reads = new ArrayList<>();
        for (int i = 0; i < OBJECTS; i++) {
          reads.add(client.read("hist", "obj-" + i, 0, 4096));
        }
        TimeUnit.SECONDS.sleep(3);
        for (int i = 0; i < OBJECTS; i++) {
          CompletableFuture<ByteBuf> read = reads.get(i);
          if (read.isDone() && !read.isCompletedExceptionally()) {
            byte[] got = ByteBufUtil.getBytes(read.join());
            assertFalse(
                java.util.Arrays.equals(got, data(i, 1)),
                "obj-" + i + " was read back at its older version, acknowledged writes lost");
          }
          assertFalse(read.isDone(), "obj-" + i + ": " + read);
        }
        for (int id : ids.subList(1, ids.size())) {
          OsdProcess again = startOsd(cluster.data().get(id), monitors);
          byId.put(id, again);
          awaitRegistered(again);
        }
        for (int i = 0; i < OBJECTS; i++) {
          ByteBuf got = reads.get(i).get(60, TimeUnit.SECONDS);
          try {
            assertArrayEquals(data(i, 2), ByteBufUtil.getBytes(got), "obj-" + i);
          } finally {
            got.release();
          }
        }
      }
      awaitActiveClean(monitors, Duration.ofSeconds(90));
    }
  }

  private static int upOsds(JsonNode status) {
    return status.path("osdmap").path("num_up_osds").asInt();
  }

  /** How many PGs the monitors count in a state that has the word {@code word}. */
  private static int count(JsonNode status, String word) {
    int n = 0;
    for (JsonNode s : status.path("pgmap").path("pgs_by_state")) {
      if (List.of(s.path("state_name").asText().split("\\+")).contains(word)) {
        n += s.path("count").asInt();
      }
    }
    return n;
  }

  private static void writeAll(ClusterClient client, int version) throws Exception {
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    for (int i = 0; i < OBJECTS; i++) {
      acks.add(client.write("hist", "obj-" + i, 0, Unpooled.wrappedBuffer(data(i, version))));
    }
    for (CompletableFuture<Void> ack : acks) {
      ack.get(60, TimeUnit.SECONDS);
    }
  }

  /** Object {@code i}'s 4 KiB at {@code version}: every byte says which. */
  private static byte[] data(int i, int version) {
    byte[] b = new byte[4096];
    java.util.Arrays.fill(b, (byte) (i * 16 + version));
    return b;
  }
}
