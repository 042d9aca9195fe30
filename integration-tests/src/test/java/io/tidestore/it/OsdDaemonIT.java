package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon as a process: start, readiness, talk, lock, SIGTERM, kill -9, bad settings. */
class OsdDaemonIT {
  private static final Duration STOP = Duration.ofSeconds(20);
  @TempDir Path dir;

  private static HttpResponse<String> get(int port, String path) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void theIoBackendAndCleanerPolicyReachTheDaemonAndAreReported() throws Exception {
    try (OsdProcess osd =
        OsdProcess.startOsd(
            dir.resolve("fc"),
            "--shards",
            "2",
            "--shard-size",
            "16m",
            "--io-backend",
            "filechannel",
            "--cleaner-policy",
            "cost-benefit")) {
      int port = osd.awaitReady();
      assertTrue(osd.awaitLine("tidestore osd ready", STOP).contains("io_backend=filechannel"));
      assertTrue(osd.output().contains("cleaner cost-benefit"), osd.output());
      assertTrue(get(port, "/status").body().contains("\"io_backend\":\"filechannel\""));
      assertTrue(
          get(port, "/metrics")
              .body()
              .contains("tidestore_io_backend_info{backend=\"filechannel\"} 1"));
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
    try (OsdProcess osd =
        OsdProcess.startOsd(dir.resolve("auto"), "--shards", "2", "--shard-size", "16m")) {
      int port = osd.awaitReady();
      // io_uring works on the machines this project targets; auto must take it there.
      String status = get(port, "/status").body();
      assertTrue(status.contains("\"io_backend\":\"io_uring\""), status);
      // A first-start mkfs makes a volume, where auto flushes the shards' journals as a group.
      assertTrue(status.contains("\"layout\":\"volume\""), status);
      assertTrue(status.contains("\"journal_flush\":\"fdatasync\""), status);
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
    try (OsdProcess bad = OsdProcess.startOsd(dir.resolve("bad"), "--io-backend", "spdk")) {
      assertEquals(2, bad.awaitExit(STOP), bad.output());
      assertTrue(bad.output().contains("auto, io_uring or filechannel"), bad.output());
    }
  }

  @Test
  void startsServesAndStopsWithExitZeroOnSigterm() throws Exception {
    Path data = dir.resolve("osd.0");
    Path pidFile = dir.resolve("run/osd.pid");
    try (OsdProcess osd =
        OsdProcess.start(
            "osd",
            "--data",
            data.toString(),
            "--metrics-port",
            "0",
            "--port",
            "0",
            "--pid-file",
            pidFile.toString(),
            "--shards",
            "2",
            "--shard-size",
            "16m")) {
      int port = osd.awaitReady();
      assertTrue(osd.output().contains("data " + data), osd.output());
      assertTrue(osd.output().contains("JDK 25") || osd.output().contains("JDK 2"), osd.output());
      assertEquals(osd.pid() + "\n", Files.readString(pidFile));

      HttpResponse<String> status = get(port, "/status");
      assertEquals(200, status.statusCode());
      assertTrue(status.body().contains("\"state\":\"active\""), status.body());

      HttpResponse<String> metrics = get(port, "/metrics");
      assertEquals(200, metrics.statusCode());
      assertTrue(metrics.body().contains("jvm_memory_used_bytes"), metrics.body());

      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
      assertTrue(osd.output().contains("tidestore osd stopped"), osd.output());
      assertFalse(Files.exists(pidFile), "pid file removed on a clean stop");
    }
  }

  /**
   * A daemon on {@code data} with any free ports and, if it formats the directory, a small store.
   */
  private static OsdProcess startOn(Path data) throws IOException {
    return OsdProcess.startOsd(data, "--shards", "2", "--shard-size", "16m");
  }

  @Test
  void secondDaemonOnTheSameDataDirRefusesAndKillNineLeavesNoStaleLock() throws Exception {
    Path data = dir.resolve("osd.0");
    try (OsdProcess first = startOn(data)) {
      first.awaitReady();
      try (OsdProcess second = startOn(data)) {
        assertEquals(1, second.awaitExit(STOP), second.output());
        assertTrue(
            second
                .output()
                .contains("is in use by another Tidestore process (pid " + first.pid() + ")"),
            second.output());
      }
      first.signal("KILL");
      assertEquals(137, first.awaitExit(STOP));
    }
    try (OsdProcess again = startOn(data)) {
      again.awaitReady();
      again.signal("INT");
      assertEquals(0, again.awaitExit(STOP), again.output());
    }
  }

  @Test
  void unknownConfKeyAndBadValueAreClearStartupErrors() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(conf, "data = " + dir.resolve("d") + "\nreactor = 3\n");
    try (OsdProcess osd = OsdProcess.start("osd", "--conf", conf.toString())) {
      assertEquals(2, osd.awaitExit(STOP));
      assertTrue(osd.output().contains(conf + ":2: unknown key 'reactor'"), osd.output());
    }
    Files.writeString(conf, "metrics-port = many\n");
    try (OsdProcess osd = OsdProcess.start("osd", "--conf", conf.toString())) {
      assertEquals(2, osd.awaitExit(STOP));
      assertTrue(osd.output().contains("--metrics-port"), osd.output());
    }
    Files.writeString(conf, "overprovision = 95\n");
    try (OsdProcess osd = OsdProcess.start("osd", "--conf", conf.toString())) {
      assertEquals(2, osd.awaitExit(STOP));
      assertTrue(osd.output().contains("--overprovision': 95 (0-90 percent)"), osd.output());
    }
  }

  @Test
  void flagsOverrideTheConfFile() throws Exception {
    Path conf = dir.resolve("t.conf");
    Files.writeString(
        conf,
        "data = "
            + dir.resolve("from-file")
            + "\nmetrics-port = 1\nshards = 2\nshard-size = 16m\noverprovision = 10\n");
    try (OsdProcess osd =
        OsdProcess.start("osd", "--conf", conf.toString(), "--metrics-port", "0", "--port", "0")) {
      osd.awaitReady();
      assertTrue(osd.output().contains("config " + conf), osd.output());
      assertTrue(Files.exists(dir.resolve("from-file/lock")));
      assertTrue(osd.output().contains("10% of the segments over-provisioned"), osd.output());
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
