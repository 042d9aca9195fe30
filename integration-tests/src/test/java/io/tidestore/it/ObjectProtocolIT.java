package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.tidestore.client.ObjectClient;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.protocol.ShardMap;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real daemon in each engine: its threads in the log (pinned reactors; or the classic engine's
 * messenger, op, commit, finisher and I/O threads), the object protocol, per-thread metrics and the
 * engine in /status.
 */
class ObjectProtocolIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final Pattern OBJECT_PORT = Pattern.compile("object=(\\d+)");

  @TempDir Path dir;

  @ParameterizedTest(name = "--engine {0}")
  @ValueSource(strings = {"reactor", "classic"})
  void threadsAreLaidOutAndTheObjectProtocolServesClients(String engine) throws Exception {
    try (OsdProcess osd =
            OsdProcess.start(
                "osd",
                "--engine",
                engine,
                "--data",
                dir.resolve("osd.0").toString(),
                "--metrics-port",
                "0",
                "--port",
                "0",
                "--reactors",
                "2",
                "--cpu-policy",
                "balanced",
                "--shards",
                "2",
                "--shard-size",
                "16m");
        MultiThreadIoEventLoopGroup group =
            new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory())) {
      int metricsPort = osd.awaitReady();
      if (engine.equals("reactor")) {
        String reactorsLine = osd.awaitLine("reactor(s) on epoll", Duration.ofSeconds(5));
        assertTrue(reactorsLine.contains("reactor-0 -> CPU "), reactorsLine);
        assertTrue(reactorsLine.contains("reactor-1 -> CPU "), reactorsLine);
      } else {
        String layout = osd.awaitLine("classic engine:", Duration.ofSeconds(5));
        assertTrue(layout.contains("msgr-2 -> unpinned"), layout); // Ceph's 3 messengers
        assertTrue(layout.contains("osd-op-0-0 osd-op-0-1"), layout); // 2 workers per op shard
        assertTrue(layout.contains("osd-op-7-1]"), layout); // of 8 op shards
        assertTrue(layout.contains("[commit] [finisher]"), layout);
        assertTrue(layout.contains("io-0 -> unpinned"), layout);
        assertTrue(!osd.output().contains("reactor-0"), osd.output());
      }
      Matcher m = OBJECT_PORT.matcher(osd.awaitLine("tidestore osd ready", STOP));
      assertTrue(m.find());
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1)));

      try (ObjectClient client =
          ObjectClient.connect(group, EpollSocketChannel.class, address)
              .get(10, TimeUnit.SECONDS)) {
        assertArrayEquals(
            new byte[] {1, 2, 3}, client.ping(new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS));
        ShardMap map = client.shardMap().get(10, TimeUnit.SECONDS);
        // A port per loop that accepts connections: 2 reactors, or the 3 messengers.
        assertEquals(engine.equals("reactor") ? 2 : 3, map.reactors());
      }
      try (ShardAwareClient sharded =
          ShardAwareClient.connect(group, EpollSocketChannel.class, address)
              .get(10, TimeUnit.SECONDS)) {
        assertEquals(1, sharded.reactor(1).reactor());
      }

      // A 4 GiB length prefix: error reply and close for that client only.
      try (Socket bad = new Socket("127.0.0.1", address.getPort())) {
        bad.setSoTimeout(10_000);
        OutputStream out = bad.getOutputStream();
        out.write(new byte[] {-1, -1, -1, -1, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9});
        out.flush();
        DataInputStream in = new DataInputStream(bad.getInputStream());
        int length = in.readInt();
        in.readFully(new byte[length]);
        assertEquals(-1, in.read());
      }
      assertTrue(osd.awaitLine("outside 12..", STOP).contains("closing"));

      String metrics = OsdProcess.httpGet(metricsPort, "/metrics");
      assertTrue(metrics.contains("tidestore_reactor_busy_seconds_total{cpu="), metrics);
      assertTrue(metrics.contains("tidestore_reactor_idle_seconds_total"), metrics);
      // Per-loop metrics for every Netty loop: the reactors, or the messengers and I/O loops.
      String firstThread = engine.equals("reactor") ? "reactor-0" : "msgr-0";
      assertTrue(metrics.contains("thread=\"" + firstThread + "\""), metrics);
      assertTrue(metrics.contains("tidestore_osd_engine{engine=\"" + engine + "\"} 1.0"), metrics);
      String status = OsdProcess.httpGet(metricsPort, "/status");
      assertTrue(status.contains("\"engine\":\"" + engine + "\""), status);

      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
