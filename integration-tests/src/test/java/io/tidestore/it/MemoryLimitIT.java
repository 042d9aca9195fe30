package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --memory-limit as a running daemon applies it: refused at startup, reported while serving. */
class MemoryLimitIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final long SHARD_BYTES = 16L << 20;
  private static final int SHARDS = 4;
  @TempDir Path dir;

  private static String get(int port, String path) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  /** A number in the status JSON's "memory" object. */
  private static long field(String status, String name) {
    Matcher m = Pattern.compile("\"memory\":\\{[^}]*\"" + name + "\":(\\d+)").matcher(status);
    assertTrue(m.find(), name + " in " + status);
    return Long.parseLong(m.group(1));
  }

  private Path store() throws Exception {
    Path data = dir.resolve("osd.0");
    StoreFormat.mkfs(data, SHARDS, SHARD_BYTES, StoreFormat.defaultSegmentBytes(SHARD_BYTES));
    return data;
  }

  private static OsdProcess start(Path data, String memoryLimit) throws Exception {
    return OsdProcess.startOsd(
        data, "--reactors", "2", "--cache-size", "64m", "--memory-limit", memoryLimit);
  }

  @Test
  void aLimitBelowCacheBuffersAndIndexRefusesToStartAndSaysWhatNeedsWhat() throws Exception {
    Path data = store();
    try (OsdProcess osd = start(data, "80m")) {
      assertEquals(1, osd.awaitExit(STOP), osd.output());
      String out = osd.output();
      assertTrue(
          out.contains(
              "cannot start: --memory-limit 80 MiB is below what the daemon needs at start:"
                  + " extent cache 64 MiB + I/O buffers "),
          out);
      assertTrue(out.contains("(4 shards x "), out);
      assertTrue(out.contains("raise --memory-limit or lower --cache-size"), out);
    }
    // The refusal left nothing behind: the same store starts with a limit that fits.
    try (OsdProcess osd = start(data, "256m")) {
      osd.awaitReady();
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }

  @Test
  void statusAndMetricsReportMemoryByUse() throws Exception {
    Path data = store();
    long ioPerShard =
        LogStore.shardIoBytes(StoreConfig.defaults(), StoreFormat.defaultSegmentBytes(SHARD_BYTES));
    try (OsdProcess osd = start(data, "256m")) {
      int port = osd.awaitReady();
      String status = get(port, "/status");
      assertEquals(256L << 20, field(status, "limit"));
      assertEquals(64L << 20, field(status, "cache"));
      assertEquals(SHARDS * ioPerShard, field(status, "io_buffers"));
      assertEquals(SHARDS * LogStore.initialIndexBytes(), field(status, "index"));
      assertTrue(field(status, "netty") >= 0);
      String metrics = get(port, "/metrics");
      for (String use : new String[] {"cache", "io_buffers", "index", "netty"}) {
        assertTrue(
            metrics.contains("tidestore_memory_used_bytes{use=\"" + use + "\"}"), use + metrics);
      }
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
