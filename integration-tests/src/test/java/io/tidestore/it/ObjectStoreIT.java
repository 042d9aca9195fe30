package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.testing.RequiredTools;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The real daemon over a real store: acknowledged writes survive kill -9. */
class ObjectStoreIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final Pattern OBJECT_PORT = Pattern.compile("object=(\\d+)");

  @TempDir Path dir;

  private static InetSocketAddress objectAddress(OsdProcess osd) throws Exception {
    Matcher m = OBJECT_PORT.matcher(osd.awaitLine("tidestore osd ready", STOP));
    assertTrue(m.find());
    return new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1)));
  }

  private static byte[] pattern(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 13 + seed);
    }
    return bytes;
  }

  private OsdProcess start(Path data) throws Exception {
    return start(data, "reactor");
  }

  private OsdProcess start(Path data, String engine) throws Exception {
    return OsdProcess.startOsd(data, "--engine", engine, "--reactors", "2", "--cache-size", "64m");
  }

  @ParameterizedTest(name = "--engine {0}")
  @ValueSource(strings = {"reactor", "classic"})
  void acknowledgedWritesSurviveKillNine(String engine) throws Exception {
    Path data = dir.resolve("osd.0");
    StoreFormat.mkfs(data, 4, 16L << 20, StoreFormat.defaultSegmentBytes(16L << 20));
    try (MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory())) {
      try (OsdProcess osd = start(data, engine)) {
        osd.awaitReady();
        assertTrue(osd.output().contains("object store: 4 shards"), osd.output());
        if (engine.equals("classic")) {
          // The shards are PGs of the sharded op queue whose rings an I/O thread owns.
          assertTrue(osd.output().contains("PG 3 mounted on op shard 3"), osd.output());
          assertTrue(osd.output().contains("submitted and reaped on io-0"), osd.output());
        }
        try (ShardAwareClient client =
            ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
                .get(30, TimeUnit.SECONDS)) {
          List<CompletableFuture<Void>> writes = new ArrayList<>();
          for (int i = 0; i < 32; i++) {
            writes.add(client.write("it." + i, 0, Unpooled.wrappedBuffer(pattern(65536, i))));
          }
          for (CompletableFuture<Void> w : writes) {
            w.get(30, TimeUnit.SECONDS);
          }
        }
        osd.signal("KILL");
        assertEquals(137, osd.awaitExit(STOP));
      }
      try (OsdProcess osd = start(data, engine)) {
        int metricsPort = osd.awaitReady();
        try (ShardAwareClient client =
            ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
                .get(30, TimeUnit.SECONDS)) {
          // Twice: the first pass reads the disk and fills the extent caches, the second hits.
          for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < 32; i++) {
              ByteBuf read = client.read("it." + i, 0, 65536).get(30, TimeUnit.SECONDS);
              try {
                assertArrayEquals(pattern(65536, i), ByteBufUtil.getBytes(read), "it." + i);
              } finally {
                read.release();
              }
            }
          }
          // One write, so the journal histograms of this mount have a sample for promtool.
          client
              .write("it.after", 0, Unpooled.wrappedBuffer(pattern(8192, 99)))
              .get(30, TimeUnit.SECONDS);
        }
        String metrics = OsdProcess.httpGet(metricsPort, "/metrics");
        assertTrue(
            Scrape.sum(metrics, "tidestore_object_op_latency_seconds_count{op=\"read\"") >= 64,
            metrics);
        assertTrue(Scrape.sum(metrics, "tidestore_journal_write_latency_seconds_count") >= 1);
        assertTrue(Scrape.sum(metrics, "tidestore_journal_batch_ops_sum") >= 1);
        assertTrue(Scrape.sum(metrics, "tidestore_journal_batch_bytes_sum") >= 8192);
        assertTrue(Scrape.sum(metrics, "tidestore_store_free_bytes") > 0, metrics);
        assertTrue(Scrape.sum(metrics, "tidestore_store_used_bytes") >= 32 * 65536, metrics);
        assertTrue(Scrape.sum(metrics, "tidestore_store_segments_free") > 0, metrics);
        for (String name :
            List.of(
                "tidestore_nbd_op_latency_seconds_bucket",
                "tidestore_reactor_busy_seconds_total",
                "tidestore_cleaner_segments_cleaned_total",
                "tidestore_cleaner_relocated_bytes_total",
                "tidestore_store_write_amplification",
                "tidestore_store_space_waits_total",
                "tidestore_store_space_wait_seconds_total",
                "tidestore_journal_records_total")) {
          assertTrue(metrics.contains(name), name + " missing:\n" + metrics);
        }
        java.util.regex.Matcher hits =
            Pattern.compile("tidestore_cache_hits_total\\{shard=\"\\d+\"} ([0-9.E]+)")
                .matcher(metrics);
        double totalHits = 0;
        while (hits.find()) {
          totalHits += Double.parseDouble(hits.group(1));
        }
        assertTrue(totalHits >= 32 * 16, "second pass hits the cache: " + totalHits);
        assertTrue(metrics.contains("tidestore_memory_reserved_bytes"), metrics);
        assertPromtoolAccepts(metrics);

        // Switch the running daemon's caches to LRU: cached data stays valid, stats show it.
        try (OsdProcess admin =
            OsdProcess.start(
                "admin", "--http", "127.0.0.1:" + metricsPort, "cache-policy", "set", "lru")) {
          assertEquals(0, admin.awaitExit(STOP), admin.output());
          assertTrue(admin.output().contains("\"policy\":\"lru\",\"shards\":4"), admin.output());
        }
        try (ShardAwareClient client =
            ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
                .get(30, TimeUnit.SECONDS)) {
          for (int i = 0; i < 32; i++) {
            ByteBuf read = client.read("it." + i, 0, 65536).get(30, TimeUnit.SECONDS);
            try {
              assertArrayEquals(
                  pattern(65536, i), ByteBufUtil.getBytes(read), "after switch it." + i);
            } finally {
              read.release();
            }
          }
        }
        String policy = dumpMetrics(metricsPort, "tidestore_cache_policy");
        assertTrue(policy.contains("\"name\" : \"tidestore_cache_policy_switches_total\""), policy);
        assertTrue(policy.contains("\"value\" : 1.0"), policy);
        String latency = dumpMetrics(metricsPort, "tidestore_object_op_latency");
        assertTrue(latency.contains("\"op\" : \"read\""), latency);
        assertTrue(latency.contains("\"avg\""), latency);
        assertTrue(latency.contains("\"le\" : \"+Inf\""), latency);
        assertTrue(metrics.contains("tidestore_cache_capacity_bytes{shard=\"3\"}"), metrics);
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
    }
  }

  @Test
  void imagesCreatedThroughTheProtocolAreServedOverNbd() throws Exception {
    RequiredTools.command("qemu-io", "qemu-utils");
    RequiredTools.command("nbdinfo", "libnbd-bin");
    Path data = dir.resolve("osd.1");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (MultiThreadIoEventLoopGroup group =
            new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        OsdProcess osd = start(data)) {
      osd.awaitReady();
      Matcher m = Pattern.compile("nbd=(\\d+)").matcher(osd.awaitLine("tidestore osd ready", STOP));
      assertTrue(m.find(), osd.output());
      String nbd = "nbd://127.0.0.1:" + m.group(1);
      try (ShardAwareClient client =
          ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
              .get(30, TimeUnit.SECONDS)) {
        client
            .setXattr("rbd_header.vol", "size", Unpooled.buffer(8).writeLong(16L << 20))
            .get(30, TimeUnit.SECONDS);
        client
            .setXattr("rbd_header.default", "size", Unpooled.buffer(8).writeLong(8L << 20))
            .get(30, TimeUnit.SECONDS);
      }
      Process list = new ProcessBuilder("nbdinfo", "--list", nbd).redirectErrorStream(true).start();
      String listed = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, list.waitFor(), listed);
      assertTrue(listed.contains("export=\"vol\""), listed);
      assertTrue(listed.contains("export-size: 16777216"), listed);
      assertTrue(listed.contains("export=\"default\""), listed);
      Process io =
          new ProcessBuilder(
                  "qemu-io",
                  "-f",
                  "raw",
                  nbd + "/vol",
                  "-c",
                  "write -P 0x3c 4190208 8192",
                  "-c",
                  "read -P 0x3c 4190208 8192",
                  "-c",
                  "read -P 0 0 4096")
              .redirectErrorStream(true)
              .start();
      String out = new String(io.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, io.waitFor(), out);
      assertTrue(!out.contains("Pattern verification failed"), out);
      Process size = new ProcessBuilder("nbdinfo", "--size", nbd).redirectErrorStream(true).start();
      String defaultSize = new String(size.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, size.waitFor(), defaultSize);
      assertEquals("8388608", defaultSize.strip());
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }

  private static String image(String osdAddress, int expectedExit, String... args)
      throws Exception {
    List<String> all = new ArrayList<>(List.of("image", "--osd", osdAddress));
    all.addAll(List.of(args));
    try (OsdProcess cli = OsdProcess.start(all.toArray(String[]::new))) {
      assertEquals(expectedExit, cli.awaitExit(STOP), cli.output());
      return cli.output();
    }
  }

  @Test
  void imageCommandsManageImagesThatNbdServes() throws Exception {
    RequiredTools.command("nbdinfo", "libnbd-bin");
    Path data = dir.resolve("osd.2");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (OsdProcess osd = start(data)) {
      osd.awaitReady();
      InetSocketAddress objects = objectAddress(osd);
      String at = "127.0.0.1:" + objects.getPort();
      Matcher m = Pattern.compile("nbd=(\\d+)").matcher(osd.awaitLine("tidestore osd ready", STOP));
      assertTrue(m.find());
      String nbd = "nbd://127.0.0.1:" + m.group(1) + "/img1";

      assertTrue(image(at, 0, "create", "img1", "--size", "12M").contains("created img1"));
      assertTrue(image(at, 1, "create", "img1", "--size", "1M").contains("already exists"));
      image(at, 2, "create", "bad.name", "--size", "1M");
      assertTrue(image(at, 0, "ls").contains("img1"));
      String info = image(at, 0, "info", "img1");
      assertTrue(info.contains("size: 12582912 bytes"), info);
      assertTrue(info.contains("objects: 3"), info);

      Process io =
          new ProcessBuilder(
                  "qemu-io",
                  "-f",
                  "raw",
                  nbd,
                  "-c",
                  "write -P 0x77 8M 64k",
                  "-c",
                  "read -P 0x77 8M 64k")
              .redirectErrorStream(true)
              .start();
      String ioOut = new String(io.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, io.waitFor(), ioOut);

      assertTrue(image(at, 1, "resize", "img1", "--size", "4M").contains("--allow-shrink"));
      image(at, 0, "resize", "img1", "--size", "4M", "--allow-shrink");
      Process size = new ProcessBuilder("nbdinfo", "--size", nbd).redirectErrorStream(true).start();
      String sized = new String(size.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, size.waitFor(), sized);
      assertEquals("4194304", sized.strip());
      image(at, 0, "resize", "img1", "--size", "12M");
      Process zero =
          new ProcessBuilder("qemu-io", "-f", "raw", nbd, "-c", "read -P 0 8M 64k")
              .redirectErrorStream(true)
              .start();
      String zeroOut = new String(zero.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, zero.waitFor(), zeroOut);
      assertTrue(
          !zeroOut.contains("Pattern verification failed"), "shrink left old data: " + zeroOut);

      assertTrue(image(at, 0, "rm", "img1").contains("removed img1"));
      assertTrue(image(at, 1, "info", "img1").contains("no image img1"));
      assertTrue(!image(at, 0, "ls").contains("img1"));
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }

  /**
   * What a removed or shrunk image held never shows through again: not after a grow, not in an
   * image created later under the same name, not when a connection opened before the change keeps
   * writing, and not when data was left past the end (as an interrupted shrink of an older build
   * left it). rm visits only the objects that exist, so a petabyte image goes at once; an image
   * with a malformed size is reported as such and can still be removed.
   */
  @Test
  void removedAndCutDataNeverShowsThroughAgain() throws Exception {
    Path data = dir.resolve("osd.3");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (MultiThreadIoEventLoopGroup group =
            new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        OsdProcess osd = start(data)) {
      osd.awaitReady();
      InetSocketAddress objects = objectAddress(osd);
      String at = "127.0.0.1:" + objects.getPort();
      Matcher m = Pattern.compile("nbd=(\\d+)").matcher(osd.awaitLine("tidestore osd ready", STOP));
      assertTrue(m.find());
      int nbdPort = Integer.parseInt(m.group(1));
      byte[] ones = new byte[4096];
      java.util.Arrays.fill(ones, (byte) 1);
      byte[] zeros = new byte[4096];

      // A connection opened before rm cannot write into the next image of that name.
      image(at, 0, "create", "o1", "--size", "16M");
      try (NbdWire old = NbdWire.connect(nbdPort, "o1")) {
        old.write(8L << 20, ones);
        image(at, 0, "rm", "o1");
        java.io.IOException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class, () -> old.write(12L << 20, ones));
        assertTrue(refused.getMessage().contains("errno 28"), refused.getMessage()); // ENOSPC
      }
      image(at, 0, "create", "o1", "--size", "16M");
      try (NbdWire fresh = NbdWire.connect(nbdPort, "o1")) {
        assertArrayEquals(zeros, fresh.read(8L << 20, 4096));
        assertArrayEquals(zeros, fresh.read(12L << 20, 4096));
      }

      // A connection opened before a shrink cannot write past the new end.
      try (NbdWire old = NbdWire.connect(nbdPort, "o1")) {
        image(at, 0, "resize", "o1", "--size", "4M", "--allow-shrink");
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> old.write(8L << 20, ones));
      }

      try (ShardAwareClient client =
          ShardAwareClient.connect(group, EpollSocketChannel.class, objects)
              .get(30, TimeUnit.SECONDS)) {
        // Data past the end, and data under a name with no image: neither may show through.
        client
            .write("rbd_data.o1.0000000000000003", 0, Unpooled.wrappedBuffer(ones))
            .get(30, TimeUnit.SECONDS);
        client
            .write("rbd_data.o2.0000000000000000", 0, Unpooled.wrappedBuffer(ones))
            .get(30, TimeUnit.SECONDS);
        image(at, 0, "resize", "o1", "--size", "16M");
        image(at, 0, "create", "o2", "--size", "16M");
        try (NbdWire o1 = NbdWire.connect(nbdPort, "o1");
            NbdWire o2 = NbdWire.connect(nbdPort, "o2")) {
          assertArrayEquals(zeros, o1.read(12L << 20, 4096));
          assertArrayEquals(zeros, o2.read(0, 4096));
        }

        // A petabyte image with one object far out: rm lists, it does not count to 2^28.
        image(at, 0, "create", "huge", "--size", "1P");
        client
            .write("rbd_data.huge.000000000fffffff", 0, Unpooled.wrappedBuffer(ones))
            .get(30, TimeUnit.SECONDS);
        long started = System.nanoTime();
        image(at, 0, "rm", "huge");
        assertTrue(
            System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20), "rm of 1P took long");
        assertTrue(
            client.stat("rbd_data.huge.000000000fffffff").handle((v, e) -> e != null).get(),
            "the far object was removed");

        // A malformed size: a clear refusal to use it, and rm still works.
        client
            .setXattr("rbd_header.bad", "size", Unpooled.wrappedBuffer(new byte[] {1, 2}))
            .get(30, TimeUnit.SECONDS);
        assertTrue(image(at, 1, "info", "bad").contains("malformed size"));
        image(at, 0, "rm", "bad");
        assertTrue(!image(at, 0, "ls").contains("bad"));
      }
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }

  /** {@code tidestore admin dump_metrics PREFIX}'s output; fails unless it exits 0. */
  private static String dumpMetrics(int metricsPort, String prefix) throws Exception {
    try (OsdProcess dump =
        OsdProcess.start("admin", "--http", "127.0.0.1:" + metricsPort, "dump_metrics", prefix)) {
      assertEquals(0, dump.awaitExit(STOP), dump.output());
      return dump.output();
    }
  }

  /** Prometheus' own linter on the exposition (bin/test installs it; skipped without it). */
  private static void assertPromtoolAccepts(String metrics) throws Exception {
    RequiredTools.command("promtool", "prometheus");
    Process check =
        new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    try (var in = check.getOutputStream()) {
      in.write(metrics.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, check.waitFor(), "promtool check metrics:\n" + out);
  }
}
