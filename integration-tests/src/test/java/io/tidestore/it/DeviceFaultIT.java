package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.store.engine.StoreFormat;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Device faults under a real daemon: the test-jar's fault-injecting I/O wrapper (loaded into the
 * daemon through the io.backend seam, steered by a control file) fails one shard's durable writes
 * or flushes while an NBD client writes and verifies an image. A failed durable write is never
 * acknowledged; the shard turns read-only for good (fsyncgate: no retry), says so in /status and
 * metrics, and keeps serving what is durable, while the other shards keep reading and writing; a
 * read EIO fails that read only, on a connection that stays. A restart without the fault replays to
 * a store fsck finds clean, with every acknowledged write there.
 */
class DeviceFaultIT {
  private static final int CHUNK = 64 << 10;
  private static final int CHUNKS = 1024; // a 64 MiB image: 16 objects of 4 MiB
  private static final Duration STOP = Duration.ofSeconds(60);

  @TempDir Path dir;

  private static byte[] pattern(int chunk, int version) {
    ByteBuffer b = ByteBuffer.allocate(CHUNK);
    while (b.hasRemaining()) {
      b.putInt(chunk).putInt(version);
    }
    return b.array();
  }

  private static void control(Path file, String rules) throws Exception {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, rules);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Writes {@code version} to every chunk; acked[c] follows the acknowledged ones; failures. */
  private static int writeAll(NbdWire nbd, int[] acked, int version) throws Exception {
    int failed = 0;
    for (int c = 0; c < CHUNKS; c++) {
      NbdWire.Reply r = nbd.command(NbdWire.WRITE, (long) c * CHUNK, CHUNK, pattern(c, version));
      if (r.error() == 0) {
        acked[c] = version;
      } else {
        assertEquals(NbdWire.EIO, r.error(), "chunk " + c);
        failed++;
      }
    }
    return failed;
  }

  private static void verifyAll(NbdWire nbd, int[] acked) throws Exception {
    verifyAll(nbd, acked, acked);
  }

  /**
   * Every chunk holds, intact, its newest acknowledged version or a newer one that was written but
   * not acknowledged (after a failed flush the data may have reached the disk: replay then finds
   * the record whole, and an unacknowledged write may appear); acked[] takes what was found.
   */
  private static void verifyAll(NbdWire nbd, int[] acked, int[] attempted) throws Exception {
    for (int c = 0; c < CHUNKS; c++) {
      NbdWire.Reply r = nbd.command(NbdWire.READ, (long) c * CHUNK, CHUNK, null);
      assertEquals(0, r.error(), "read of chunk " + c);
      int found = ByteBuffer.wrap(r.data()).getInt(4);
      assertTrue(
          found >= acked[c] && found <= attempted[c],
          "chunk " + c + " holds version " + found + ", acknowledged " + acked[c]);
      assertArrayEquals(pattern(c, found), r.data(), "chunk " + c + " is torn");
      acked[c] = found;
    }
  }

  /** A shard holding data objects, by the store's object-count metric. */
  private static int shardWithObjects(int metricsPort, int shards, int not) throws Exception {
    String metrics = Scrape.metrics(metricsPort);
    for (int s = 0; s < shards; s++) {
      if (s != not && Scrape.sum(metrics, "tidestore_store_objects{shard=\"" + s + "\"") > 0) {
        return s;
      }
    }
    throw new AssertionError("no shard other than " + not + " holds objects:\n" + metrics);
  }

  @ParameterizedTest(name = "--journal-flush {0}, {1} {2}")
  @CsvSource({"dsync, write, EIO", "fdatasync, sync, EIO", "dsync, write, short"})
  void failedDurableWriteIsNeverAckedShardGoesReadOnlyOthersServe(
      String flush, String ops, String fault) throws Exception {
    int shards = 4;
    Path data = dir.resolve("osd");
    // Shard files, so that a fault rule names one shard's file. In the volume layout one fdatasync
    // covers every shard of a reactor, and a failed one fails them all (docs/reliability.md).
    StoreFormat.mkfs(
        data,
        shards,
        64L << 20,
        StoreFormat.defaultSegmentBytes(64L << 20),
        StoreFormat.SpaceLayout.FILES,
        note -> {});
    Path faults = dir.resolve("faults");
    int[] acked = new int[CHUNKS];
    int victim;
    try (OsdProcess osd =
        OsdProcess.startOsdWithFixtures(
            List.of("-Dtidestore.test.faults=" + faults),
            data,
            "--cache-size",
            "0",
            "--journal-flush",
            flush,
            "--scrub-interval",
            "0")) {
      OsdProcess.Ports ports = osd.awaitPorts();
      assertTrue(osd.output().contains("fault-injecting"), "the wrapper is loaded");
      OsdProcess.run(
          "image", "--osd", "127.0.0.1:" + ports.object(), "create", "vol", "--size", "64M");
      try (NbdWire nbd = NbdWire.connect(ports.nbd(), "vol")) {
        assertEquals(0, writeAll(nbd, acked, 1));
        victim = shardWithObjects(ports.metrics(), shards, -1);
        control(faults, ops + " shard-" + victim + " " + fault + "\n");
        int failed = writeAll(nbd, acked, 2);
        assertTrue(failed > 0, "writes to shard " + victim + " failed");
        assertTrue(failed < CHUNKS, "writes to the other shards succeeded");
        JsonNode status = Status.get(ports.metrics());
        assertEquals("degraded", status.get("health").asText(), status.toString());
        for (int s = 0; s < shards; s++) {
          JsonNode shard = status.get("shards").get(s);
          assertEquals(s == victim, shard.get("read_only").asBoolean(), shard.toString());
        }
        String reason = status.get("shards").get(victim).get("read_only_reason").asText();
        assertTrue(reason.contains(fault.equals("short") ? "short write" : "injected EIO"), reason);
        String metrics =
            Scrape.awaitSum(
                ports.metrics(), "tidestore_shard_read_only{shard=\"" + victim + "\"", 1.0);
        assertEquals(1.0, Scrape.sum(metrics, "tidestore_shard_read_only"), metrics);

        // Never retried, never pretended: the fault gone, the shard still refuses writes...
        control(faults, "");
        int refused = writeAll(nbd, acked, 3);
        assertTrue(refused > 0 && refused < CHUNKS, "only the read-only shard refuses");
        // ...and serves every durable block, as do the others, on the same connection.
        verifyAll(nbd, acked);

        // A read EIO is an error to that read only.
        int reader = shardWithObjects(ports.metrics(), shards, victim);
        control(faults, "read shard-" + reader + " EIO\n");
        int readErrors = 0;
        for (int c = 0; c < CHUNKS; c++) {
          NbdWire.Reply r = nbd.command(NbdWire.READ, (long) c * CHUNK, CHUNK, null);
          if (r.error() != 0) {
            assertEquals(NbdWire.EIO, r.error());
            readErrors++;
          } else {
            assertArrayEquals(pattern(c, acked[c]), r.data());
          }
        }
        assertTrue(readErrors > 0 && readErrors < CHUNKS, readErrors + " reads failed");
        assertEquals(
            false, Status.shard(ports.metrics(), reader).get("read_only").asBoolean(), "reads");
        control(faults, "");
        verifyAll(nbd, acked);
      }
      osd.kill9();
    }
    // Exits non-zero on any fault: the journal replays to a consistent store.
    OsdProcess.run("fsck", "--data", data.toString());
    try (OsdProcess osd = OsdProcess.startOsd(data, "--cache-size", "0")) {
      OsdProcess.Ports ports = osd.awaitPorts();
      try (NbdWire nbd = NbdWire.connect(ports.nbd(), "vol")) {
        int[] attempted = new int[CHUNKS];
        Arrays.fill(attempted, 3);
        verifyAll(nbd, acked, attempted);
        assertEquals(0, writeAll(nbd, acked, 4), "the remounted shard writes again");
        verifyAll(nbd, acked);
      }
      assertEquals("ok", Status.get(ports.metrics()).get("health").asText());
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
