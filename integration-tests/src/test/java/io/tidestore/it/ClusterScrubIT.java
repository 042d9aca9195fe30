package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.awaitStatus;
import static io.tidestore.it.ClusterProcesses.client;
import static io.tidestore.it.ClusterProcesses.createPool;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.Placement;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deep scrub between real processes (one monitor, three OSDs, a pool of one PG, size 3): the
 * primary and one replica are stopped, a byte of one stored block of a different object is flipped
 * on each one's disk (so each store refuses that block: a bad copy, as bit rot makes one), and both
 * come back. {@code pg deep-scrub} reports both bad copies, the blocks and the OSDs, and repairs
 * them (the replica's pushed from the primary, the primary's pulled from the majority); a second
 * scrub finds nothing; every object reads back whole from the primary, and again from the repaired
 * replica once the other two are killed. And with {@code --deep-scrub-interval 2s}, a primary
 * scrubs its PG with no one asking.
 */
class ClusterScrubIT {
  private static final Duration MARK_DOWN = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAGIC = 0x4445455053435242L; // "DEEPSCRB"
  private static final int OBJECTS = 6;
  private static final int BLOCKS = 4;

  @TempDir Path dir;

  /** Block {@code b} of object {@code i}: content found nowhere else on the disks. */
  private static byte[] block(int i, int b) {
    ByteBuffer buf = ByteBuffer.allocate(StoredBlocks.BLOCK);
    while (buf.hasRemaining()) {
      buf.putLong(MAGIC).putInt(i).putInt(b);
    }
    return buf.array();
  }

  private static byte[] object(int i) {
    ByteBuffer buf = ByteBuffer.allocate(BLOCKS * StoredBlocks.BLOCK);
    for (int b = 0; b < BLOCKS; b++) {
      buf.put(block(i, b));
    }
    return buf.array();
  }

  @Test
  void deepScrubRepairsABadReplicaAndABadPrimaryThenFindsNothing() throws Exception {
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3)) {
      String monitors = cluster.monitors();
      createPool(monitors, "scr", 3, 1, 1);
      PgId pg = writeObjects(cluster, "scr");
      List<Integer> acting = acting(cluster, pg);
      assertEquals(3, acting.size(), "acting " + acting);
      int primary = acting.get(0);
      int replica = acting.get(1);

      // Stopped cleanly, so that each block is where the store's index says.
      for (int osd : List.of(primary, replica)) {
        OsdProcess p = cluster.osds().get(osd);
        p.signal("TERM");
        assertEquals(0, p.awaitExit(Duration.ofSeconds(60)), p.output());
      }
      corrupt(cluster.data().get(replica), 1, 2);
      corrupt(cluster.data().get(primary), 2, 1);
      for (int osd : List.of(primary, replica)) {
        OsdProcess back = startOsd(cluster.data().get(osd), monitors);
        cluster.osds().put(osd, back);
        assertEquals(osd, awaitRegistered(back));
      }
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 3);

      ClusterProcesses.Result first =
          run("pg", "deep-scrub", pg.toString(), "--mon", monitors, "--format", "json");
      assertEquals(0, first.exit(), first.output());
      JsonNode report = json(first.output());
      assertEquals(pg.toString(), report.path("pgid").asText());
      assertEquals(primary, report.path("primary").asInt());
      assertEquals(OBJECTS, report.path("objects").asInt(), report.toString());
      assertEquals(OBJECTS * BLOCKS, report.path("blocks").asInt(), report.toString());
      assertEquals(2, report.path("inconsistent").asInt(), report.toString());
      assertEquals(2, report.path("repaired").asInt(), report.toString());
      assertEquals(0, report.path("unrepaired").asInt(), report.toString());
      Map<String, JsonNode> found = new HashMap<>();
      for (JsonNode f : report.path("inconsistents")) {
        found.put(f.path("object").asText(), f);
      }
      assertFinding(found.get("s-1"), replica, 2);
      assertFinding(found.get("s-2"), primary, 1);

      ClusterProcesses.Result second = run("pg", "deep-scrub", pg.toString(), "--mon", monitors);
      assertEquals(0, second.exit(), second.output());
      assertTrue(second.output().contains(OBJECTS + " objects"), second.output());
      assertTrue(
          second.output().contains("0 inconsistent, 0 repaired, 0 unrepaired, 0 skipped"),
          second.output());
      scrubWhileWriting(cluster, pg);

      OsdProcess primaryProcess = cluster.osds().get(primary);
      int metrics = ClusterProcesses.osdMetricsPort(primaryProcess);
      String scraped = Scrape.awaitSum(metrics, "tidestore_osd_scrub_repaired_total", 2.0);
      assertEquals(2.0, Scrape.sum(scraped, "tidestore_osd_scrub_errors_total"), scraped);
      assertEquals(
          3.0 * OBJECTS, Scrape.sum(scraped, "tidestore_osd_scrub_objects_total"), scraped);
      assertTrue(primaryProcess.output().contains("deep scrub done"), primaryProcess.output());

      try (ClusterClient client = client(cluster.port())) {
        verify(client); // from the primary, whose copy of s-2 was pulled
      }
      primaryProcess.kill9();
      cluster.osds().get(acting.get(2)).kill9();
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 1);
      try (ClusterClient client = client(cluster.port())) {
        verify(client); // from the replica alone, whose copy of s-1 was pushed
      }

      ClusterProcesses.Result badId = run("pg", "deep-scrub", "2.zz", "--mon", monitors);
      assertEquals(2, badId.exit(), badId.output());
      assertTrue(badId.output().contains("is not a PG id"), badId.output());
      ClusterProcesses.Result noSuchPg =
          run("pg", "deep-scrub", pg.pool() + ".1", "--mon", monitors);
      assertEquals(1, noSuchPg.exit(), noSuchPg.output());
      assertTrue(noSuchPg.output().contains("has pg_num 1"), noSuchPg.output());
      cluster.osds().get(replica).kill9();
      awaitStatus(monitors, MARK_DOWN, s -> s.path("osdmap").path("num_up_osds").asInt() == 0);
      ClusterProcesses.Result noPrimary = run("pg", "deep-scrub", pg.toString(), "--mon", monitors);
      assertEquals(1, noPrimary.exit(), noPrimary.output());
      assertTrue(noPrimary.output().contains("has no primary"), noPrimary.output());
    }
  }

  @Test
  void aPrimaryDeepScrubsItsPgsOnItsSchedule() throws Exception {
    try (ClusterProcesses.Cluster cluster =
        ClusterProcesses.startCluster(dir, 1, "--deep-scrub-interval", "2s")) {
      String monitors = cluster.monitors();
      createPool(monitors, "sched", 1, 1, 1);
      int primary = acting(cluster, writeObjects(cluster, "sched")).get(0);
      // The write loaded the PG on its primary: due one interval later, with no one asking.
      OsdProcess p = cluster.osds().get(primary);
      String scraped =
          Scrape.awaitSumAtLeast(
              ClusterProcesses.osdMetricsPort(p), "tidestore_osd_scrub_objects_total", OBJECTS);
      assertEquals(0.0, Scrape.sum(scraped, "tidestore_osd_scrub_errors_total"), scraped);
      assertTrue(p.output().contains("deep scrub done on acting"), p.output());
    }
  }

  /**
   * A scrub while a client keeps rewriting every object (the same bytes, a new version each time):
   * it holds each object while comparing it, so no write lands between two members' reads of it,
   * and it finds nothing to report or skip.
   */
  private static void scrubWhileWriting(ClusterProcesses.Cluster cluster, PgId pg)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong written = new AtomicLong();
    try (ClusterClient client = client(cluster.port())) {
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(
              () -> {
                while (!stop.get()) {
                  List<CompletableFuture<Void>> acks = new ArrayList<>();
                  for (int i = 0; i < OBJECTS; i++) {
                    acks.add(client.write("scr", "s-" + i, 0, Unpooled.wrappedBuffer(object(i))));
                  }
                  CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
                  written.addAndGet(OBJECTS);
                }
              });
      try {
        ClusterProcesses.Result busy =
            run("pg", "deep-scrub", pg.toString(), "--mon", cluster.monitors(), "--format", "json");
        assertEquals(0, busy.exit(), busy.output());
        JsonNode report = json(busy.output());
        assertEquals(OBJECTS, report.path("objects").asInt(), report.toString());
        assertEquals(0, report.path("inconsistent").asInt(), report.toString());
        assertEquals(0, report.path("skipped").asInt(), report.toString());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS);
      }
      assertTrue(written.get() > 0, "the writes went on");
    }
  }

  /** Writes the objects into {@code pool} (of one PG); that PG. */
  private static PgId writeObjects(ClusterProcesses.Cluster cluster, String pool) throws Exception {
    try (ClusterClient client = client(cluster.port())) {
      for (int i = 0; i < OBJECTS; i++) {
        client
            .write(pool, "s-" + i, 0, Unpooled.wrappedBuffer(object(i)))
            .get(60, TimeUnit.SECONDS);
      }
      return new PgId(client.map().pool(pool).orElseThrow().id(), 0);
    }
  }

  /** The acting set of {@code pg} in the monitors' map, its primary first. */
  private static List<Integer> acting(ClusterProcesses.Cluster cluster, PgId pg) throws Exception {
    try (ClusterClient client = client(cluster.port())) {
      return Placement.of(client.map()).pg(pg).acting();
    }
  }

  /** Flips a byte of block {@code b} of object {@code i} wherever the stopped OSD stores it. */
  private static void corrupt(Path data, int i, int b) throws Exception {
    List<StoredBlocks.At> at = StoredBlocks.find(data, 1, block(i, b));
    assertFalse(at.isEmpty(), "block " + b + " of s-" + i + " is on " + data);
    for (StoredBlocks.At a : at) {
      StoredBlocks.flip(data, a, 100);
    }
  }

  private static void assertFinding(JsonNode f, int osd, int block) {
    assertTrue(f != null, "no finding");
    assertEquals(osd, f.path("osd").asInt(), f.toString());
    assertEquals(1, f.path("blocks").size(), f.toString());
    assertEquals(block, f.path("blocks").get(0).asInt(), f.toString());
    assertEquals("1 block unreadable", f.path("problem").asText(), f.toString());
    assertTrue(f.path("repaired").asBoolean(), f.toString());
  }

  private static JsonNode json(String output) throws Exception {
    return JSON.readTree(output.substring(output.indexOf('{')));
  }

  private static void verify(ClusterClient client) throws Exception {
    for (int i = 0; i < OBJECTS; i++) {
      ByteBuf data =
          client.read("scr", "s-" + i, 0, BLOCKS * StoredBlocks.BLOCK).get(60, TimeUnit.SECONDS);
      try {
        assertArrayEquals(object(i), ByteBufUtil.getBytes(data), "s-" + i);
      } finally {
        data.release();
      }
    }
  }
}
