package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.engine.StoreFormat;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replies complete out of order: on one connection, reads that hit the extent cache are answered
 * before an earlier read that misses it, over NBD and over the object protocol.
 *
 * <p>The miss is real: its blocks were written before a restart, so the new daemon's cache never
 * held them, and the cache counters prove it (exactly its 256 blocks miss, exactly the 8 later
 * blocks hit). The order is deterministic, not a race the miss happens to lose: the daemon runs one
 * reactor, and every request goes out in one TCP write, so the reactor decodes them all in one read
 * batch. A hit completes inside that batch (the shard, the cache and the connection are on the same
 * thread, and the store answers a fully cached read within the call), while the miss can only
 * complete after its disk reads' completions are reaped, which the loop does in a later pass. A
 * server that answered in request order would put the miss first and fail this test.
 */
class ReplyOrderIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final Pattern PORTS = Pattern.compile("object=(\\d+) nbd=(\\d+) metrics=(\\d+)");
  private static final int MISS_BYTES = 1 << 20;
  private static final int HITS = 8;
  private static final int BLOCK = 4096;
  private static final long MISS_COOKIE = 1000;
  // One write is one journal record, which must fit a segment (1 MiB on these 64 MiB shards).
  private static final int CHUNK = 256 << 10;

  @TempDir Path dir;

  private record Ports(int object, int nbd, int metrics) {}

  private static OsdProcess start(Path data) throws Exception {
    return OsdProcess.startOsd(data, "--reactors", "1", "--cache-size", "16m");
  }

  private static Ports ports(OsdProcess osd) throws Exception {
    Matcher m = PORTS.matcher(osd.awaitLine("tidestore osd ready", STOP));
    assertTrue(m.find(), osd.output());
    return new Ports(
        Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  private static byte[] pattern(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + seed);
    }
    return bytes;
  }

  private static void stop(OsdProcess osd) throws Exception {
    osd.signal("TERM");
    assertEquals(0, osd.awaitExit(STOP), osd.output());
  }

  /** Cache hits and misses over every shard. */
  private record CacheCounts(double hits, double misses) {
    static CacheCounts scrape(int metricsPort) throws Exception {
      String text = Scrape.metrics(metricsPort);
      return new CacheCounts(
          Scrape.sum(text, "tidestore_cache_hits_total"),
          Scrape.sum(text, "tidestore_cache_misses_total"));
    }
  }

  private static void assertMissCameLast(List<Long> order, CacheCounts before, CacheCounts after) {
    assertEquals(MISS_BYTES / BLOCK, after.misses() - before.misses(), "blocks that missed");
    assertEquals(HITS, after.hits() - before.hits(), "blocks that hit");
    assertEquals(HITS + 1, order.size(), "replies: " + order);
    assertEquals(
        MISS_COOKIE,
        order.get(order.size() - 1),
        "the miss was sent first but must be answered after every hit: " + order);
  }

  @Test
  void nbdCacheHitsOvertakeAnEarlierMissOnOneConnection() throws Exception {
    Path data = dir.resolve("osd.nbd");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    long missOffset = 4L << 20; // image object 1; the hits are in object 0
    byte[] missData = pattern(MISS_BYTES, 7);
    byte[] hitData = pattern(HITS * BLOCK, 3);
    try (OsdProcess osd = start(data)) {
      Ports ports = ports(osd);
      try (OsdProcess image =
          OsdProcess.start(
              "image", "--osd", "127.0.0.1:" + ports.object(), "create", "vol", "--size", "16M")) {
        assertEquals(0, image.awaitExit(STOP), image.output());
      }
      try (NbdWire nbd = NbdWire.connect(ports.nbd(), "vol")) {
        for (int at = 0; at < MISS_BYTES; at += CHUNK) {
          nbd.write(missOffset + at, Arrays.copyOfRange(missData, at, at + CHUNK));
        }
        nbd.write(0, hitData);
      }
      stop(osd);
    }
    try (OsdProcess osd = start(data)) {
      Ports ports = ports(osd);
      try (NbdWire nbd = NbdWire.connect(ports.nbd(), "vol")) {
        assertArrayEquals(hitData, nbd.read(0, HITS * BLOCK), "warming the cache");
        CacheCounts before = CacheCounts.scrape(ports.metrics());

        ByteBuffer batch = ByteBuffer.allocate(28 * (HITS + 1));
        NbdWire.request(batch, NbdWire.READ, MISS_COOKIE, missOffset, MISS_BYTES);
        for (int i = 0; i < HITS; i++) {
          NbdWire.request(batch, NbdWire.READ, i, (long) i * BLOCK, BLOCK);
        }
        nbd.send(batch.flip());
        List<Long> order = new ArrayList<>();
        for (int i = 0; i <= HITS; i++) {
          NbdWire.Reply r = nbd.reply(cookie -> cookie == MISS_COOKIE ? MISS_BYTES : BLOCK);
          assertEquals(0, r.error(), "cookie " + r.cookie());
          byte[] expected =
              r.cookie() == MISS_COOKIE
                  ? missData
                  : Arrays.copyOfRange(
                      hitData, (int) r.cookie() * BLOCK, (int) (r.cookie() + 1) * BLOCK);
          assertArrayEquals(expected, r.data(), "cookie " + r.cookie());
          order.add(r.cookie());
        }
        assertMissCameLast(order, before, CacheCounts.scrape(ports.metrics()));
      }
      String text = Scrape.metrics(ports.metrics());
      assertTrue(
          Scrape.sum(text, "tidestore_nbd_op_latency_seconds_count{op=\"read\"") >= HITS + 2,
          "NBD reads are counted");
      stop(osd);
    }
  }

  @Test
  void objectCacheHitsOvertakeAnEarlierMissOnOneConnection() throws Exception {
    Path data = dir.resolve("osd.obj");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    byte[] missData = pattern(MISS_BYTES, 11);
    byte[] hitData = pattern(HITS * BLOCK, 5);
    try (OsdProcess osd = start(data)) {
      try (ObjectWire wire = ObjectWire.connect(ports(osd).object())) {
        for (int at = 0; at < MISS_BYTES; at += CHUNK) {
          wire.write("cold", at, Arrays.copyOfRange(missData, at, at + CHUNK));
        }
        wire.write("warm", 0, hitData);
      }
      stop(osd);
    }
    try (OsdProcess osd = start(data)) {
      Ports ports = ports(osd);
      try (ObjectWire wire = ObjectWire.connect(ports.object())) {
        assertArrayEquals(hitData, wire.read("warm", 0, HITS * BLOCK), "warming the cache");
        CacheCounts before = CacheCounts.scrape(ports.metrics());

        ByteBuffer batch = ByteBuffer.allocate(64 * (HITS + 1));
        ObjectWire.read(batch, MISS_COOKIE, "cold", 0, MISS_BYTES);
        for (int i = 0; i < HITS; i++) {
          ObjectWire.read(batch, i, "warm", (long) i * BLOCK, BLOCK);
        }
        wire.send(batch.flip());
        List<Long> order = new ArrayList<>();
        for (int i = 0; i <= HITS; i++) {
          ObjectWire.Reply r = wire.reply();
          assertEquals(0, r.status(), "request " + r.id());
          byte[] expected =
              r.id() == MISS_COOKIE
                  ? missData
                  : Arrays.copyOfRange(hitData, (int) r.id() * BLOCK, (int) (r.id() + 1) * BLOCK);
          assertArrayEquals(expected, r.body(), "request " + r.id());
          order.add(r.id());
        }
        assertMissCameLast(order, before, CacheCounts.scrape(ports.metrics()));
      }
      stop(osd);
    }
  }
}
