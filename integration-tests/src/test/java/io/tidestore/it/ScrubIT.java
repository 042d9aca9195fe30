package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.store.engine.StoreFormat;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The online scrub under a real daemon: a byte of one stored block is flipped on disk while the
 * daemon runs; {@code tidestore admin scrub} starts a pass, which finds it and names the object and
 * the offset (in /status, the log and the metrics); reads of that block fail with EIO while its
 * neighbours and the rest of the image serve, on the same connection.
 */
class ScrubIT {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 4096; // a 16 MiB image
  private static final long MAGIC = 0x5343525542495421L; // "SCRUBIT!"
  private static final int DAMAGED = 1000;

  @TempDir Path dir;

  private static byte[] block(int b) {
    ByteBuffer buf = ByteBuffer.allocate(BLOCK);
    while (buf.hasRemaining()) {
      buf.putLong(MAGIC).putInt(b).putInt(~b);
    }
    return buf.array();
  }

  @Test
  void scrubFindsAFlippedByteNamesObjectAndOffsetAndTheBlockIsNeverServed() throws Exception {
    int shards = 2;
    Path data = dir.resolve("osd");
    StoreFormat.mkfs(data, shards, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (OsdProcess osd =
        OsdProcess.startOsd(
            data, "--cache-size", "0", "--scrub-interval", "0", "--scrub-rate", "64m")) {
      OsdProcess.Ports ports = osd.awaitPorts();
      OsdProcess.run(
          "image", "--osd", "127.0.0.1:" + ports.object(), "create", "vol", "--size", "16M");
      try (NbdWire nbd = NbdWire.connect(ports.nbd(), "vol")) {
        for (int b = 0; b < BLOCKS; b += 16) {
          ByteBuffer chunk = ByteBuffer.allocate(16 * BLOCK);
          for (int i = 0; i < 16; i++) {
            chunk.put(block(b + i));
          }
          assertEquals(
              0, nbd.command(NbdWire.WRITE, (long) b * BLOCK, 16 * BLOCK, chunk.array()).error());
        }
        String http = "127.0.0.1:" + ports.metrics();
        String clean = OsdProcess.run("admin", "--http", http, "scrub");
        assertTrue(clean.contains("\"started\":[0,1]"), clean);
        JsonNode first =
            Status.await(ports.metrics(), st -> passes(st) >= 2, Duration.ofSeconds(60), "a pass");
        assertEquals("ok", first.get("health").asText(), first.toString());

        List<StoredBlocks.At> stored = StoredBlocks.find(data, shards, block(DAMAGED));
        assertEquals(1, stored.size(), "block " + DAMAGED + " is stored once: " + stored);
        StoredBlocks.At at = stored.get(0);
        StoredBlocks.flip(data, at, 100);

        String started = OsdProcess.run("admin", "--http", http, "scrub");
        assertTrue(started.contains("\"started\":[0,1]"), started);
        JsonNode status =
            Status.await(ports.metrics(), st -> passes(st) >= 4, Duration.ofSeconds(60), "a pass");
        assertEquals("degraded", status.get("health").asText());
        JsonNode scrub = status.get("shards").get(at.shard()).get("scrub");
        assertEquals(1, scrub.get("errors").asInt(), scrub.toString());
        String finding = scrub.get("damaged").get(0).asText();
        // Image block 1000 is in data object 0 of the 4 MiB objects, at byte 4096000.
        assertTrue(finding.contains("rbd_data."), finding);
        assertTrue(finding.contains(".0000000000000000 offset " + (long) DAMAGED * BLOCK), finding);
        assertTrue(osd.output().contains("scrub found damage"), "logged");
        assertEquals(
            0, status.get("shards").get(1 - at.shard()).get("scrub").get("errors").asInt());
        String metrics = Scrape.awaitSum(ports.metrics(), "tidestore_scrub_errors_total", 1.0);
        assertTrue(Scrape.sum(metrics, "tidestore_scrub_passes_total") >= 4, metrics);
        assertTrue(
            Scrape.sum(metrics, "tidestore_scrub_checked_bytes_total") >= 2.0 * BLOCKS * BLOCK,
            metrics);

        assertEquals(
            NbdWire.EIO, nbd.command(NbdWire.READ, (long) DAMAGED * BLOCK, BLOCK, null).error());
        for (int b : new int[] {DAMAGED - 1, DAMAGED + 1, 0, BLOCKS - 1}) {
          NbdWire.Reply r = nbd.command(NbdWire.READ, (long) b * BLOCK, BLOCK, null);
          assertEquals(0, r.error(), "block " + b);
          assertArrayEquals(block(b), r.data(), "block " + b);
        }
      }
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(Duration.ofSeconds(60)), osd.output());
    }
  }

  /** Scrub passes completed over every shard. */
  private static long passes(JsonNode status) {
    long n = 0;
    for (JsonNode shard : status.get("shards")) {
      n += shard.get("scrub").get("passes").asLong();
    }
    return n;
  }
}
