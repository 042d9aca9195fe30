package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * systemd's Type=notify protocol against the real daemons: each runs with NOTIFY_SOCKET naming a
 * datagram socket a small Python listener owns (systemd's part), and must send READY=1 once it
 * serves (the listener connects to the metrics port the moment READY=1 arrives) and after its ready
 * line, then STOPPING=1 on SIGTERM, and exit 0.
 */
class ServiceNotifyIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void theOsdNotifiesReadyOnceItServesAndStoppingOnSigtermToAnAbstractSocket() throws Exception {
    String socket = "@tidestore-notify-it-" + ThreadLocalRandom.current().nextLong(1L << 40);
    int metricsPort = freePort();
    try (OsdProcess listener = listen(socket, metricsPort);
        OsdProcess osd =
            OsdProcess.startWithEnv(
                Map.of("NOTIFY_SOCKET", socket),
                "osd",
                "--data",
                dir.resolve("osd").toString(),
                "--shards",
                "2",
                "--shard-size",
                "16m",
                "--port",
                "0",
                "--nbd-port",
                "0",
                "--metrics-port",
                Integer.toString(metricsPort))) {
      assertReadyThenStopping(listener, osd, "tidestore osd ready");
    }
  }

  @Test
  void theMonitorNotifiesReadyAndStoppingToASocketPath() throws Exception {
    String socket = dir.resolve("notify.sock").toString();
    int metricsPort = freePort();
    try (OsdProcess listener = listen(socket, metricsPort);
        OsdProcess mon =
            OsdProcess.startWithEnv(
                Map.of("NOTIFY_SOCKET", socket),
                "mon",
                "--data",
                dir.resolve("mon").toString(),
                "--listen",
                "127.0.0.1:" + ClusterProcesses.freePortPair(),
                "--metrics-port",
                Integer.toString(metricsPort))) {
      assertReadyThenStopping(listener, mon, "tidestore mon ready");
    }
  }

  @Test
  void withoutNotifySocketTheDaemonSaysNothingAboutIt() throws Exception {
    try (OsdProcess osd =
        OsdProcess.startOsd(dir.resolve("plain"), "--shards", "1", "--shard-size", "16m")) {
      osd.awaitReady();
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(WAIT), osd.output());
      assertTrue(!osd.output().contains("NOTIFY_SOCKET"), osd.output());
    }
  }

  private static void assertReadyThenStopping(
      OsdProcess listener, OsdProcess daemon, String readyPrefix) throws Exception {
    String ready = listener.awaitLine("READY=1", WAIT);
    assertTrue(ready.endsWith(" serving=yes"), "READY=1 before the daemon served: " + ready);
    // The daemon wrote its ready line before it sent READY=1, and says the same in STATUS=.
    String readyLine = daemon.awaitLine(readyPrefix, WAIT);
    assertTrue(ready.contains("STATUS=" + readyPrefix), ready);
    String status = ready.substring(ready.indexOf("STATUS=") + 7, ready.lastIndexOf(" serving="));
    assertTrue(readyLine.endsWith(status), ready + "\nvs the log's\n" + readyLine);
    assertTrue(!listener.output().contains("STOPPING=1"), listener.output());
    daemon.signal("TERM");
    listener.awaitLine("STOPPING=1", WAIT);
    assertEquals(0, daemon.awaitExit(WAIT), daemon.output());
    assertEquals(0, listener.awaitExit(WAIT), listener.output());
  }

  private static OsdProcess listen(String socket, int port) throws Exception {
    RequiredTools.command("python3", "python3");
    Path script =
        OsdProcess.ROOT.resolve("integration-tests/src/test/resources/notify_listener.py");
    OsdProcess listener =
        OsdProcess.startCommand("python3", script.toString(), socket, Integer.toString(port));
    listener.awaitLine("listening", WAIT);
    return listener;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
