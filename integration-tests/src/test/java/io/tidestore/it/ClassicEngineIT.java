package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.engine.StoreFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classic engine as Ceph's thread pool, through the real jar: NBD clients on several
 * connections write interleaved over every placement group (each connection its own blocks, 16
 * writes in flight), every acknowledged write reads back, the op workers of every op shard did the
 * work; then the daemon is killed with SIGKILL while the writes go on, and after a restart every
 * block holds at least its newest acknowledged version, intact. In both journal flush modes: {@code
 * --journal-flush fdatasync} was refused with this engine (its syncs stalled), and this is the load
 * it stalled under.
 */
class ClassicEngineIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final int BLOCK = 4096;
  private static final int BLOCKS = (32 << 20) / BLOCK;
  private static final int CONNECTIONS = 6;
  private static final int IN_FLIGHT = 16;
  private static final int ROUNDS_BEFORE_CHECK = 24;
  private static final long MAGIC = 0x7469646573746f72L;

  @TempDir Path dir;

  private static OsdProcess start(Path data, String engine) throws IOException {
    return OsdProcess.startEngine(data, engine);
  }

  private static int[] ports(OsdProcess osd) throws Exception {
    OsdProcess.Ports ports = osd.awaitPorts();
    return new int[] {ports.object(), ports.nbd(), ports.metrics()};
  }

  /** Block {@code block} as written in {@code round} (rounds start at 1; 0 is never written). */
  static byte[] content(int block, int round) {
    ByteBuffer b = ByteBuffer.allocate(BLOCK);
    b.putLong(MAGIC).putInt(block).putInt(round);
    Random fill = new Random(((long) block << 32) | round);
    while (b.hasRemaining()) {
      b.put((byte) fill.nextInt());
    }
    return b.array();
  }

  /** One connection writing rounds of {@link #IN_FLIGHT} of its own blocks until stopped. */
  private static final class Writer implements Runnable {
    final int connection;
    final int port;
    final AtomicBoolean stop;
    final CountDownLatch warmedUp;
    final int firstRound;
    final int[] acked = new int[BLOCKS]; // the newest round acknowledged, per block
    int rounds;
    IOException failure;

    Writer(int connection, int port, AtomicBoolean stop, CountDownLatch warmedUp, int firstRound) {
      this.firstRound = firstRound;
      this.connection = connection;
      this.port = port;
      this.stop = stop;
      this.warmedUp = warmedUp;
    }

    @Override
    public void run() {
      Random random = new Random(connection);
      try (NbdWire nbd = NbdWire.connect(port, "vol")) {
        for (int round = firstRound; !stop.get(); round++) {
          int[] blocks = new int[IN_FLIGHT];
          ByteBuffer batch = ByteBuffer.allocate(IN_FLIGHT * (28 + BLOCK));
          for (int i = 0; i < IN_FLIGHT; i++) {
            // This connection's blocks only (b mod CONNECTIONS), none twice in one round.
            int slot = BLOCKS / CONNECTIONS / IN_FLIGHT;
            blocks[i] = (i * slot + random.nextInt(slot)) * CONNECTIONS + connection;
            NbdWire.request(batch, NbdWire.WRITE, i, (long) blocks[i] * BLOCK, BLOCK);
            batch.put(content(blocks[i], round));
          }
          nbd.send(batch.flip());
          for (int i = 0; i < IN_FLIGHT; i++) {
            NbdWire.Reply reply = nbd.reply(cookie -> 0);
            if (reply.error() != 0) {
              throw new IOException("write of block " + blocks[(int) reply.cookie()] + " failed");
            }
            acked[blocks[(int) reply.cookie()]] = round;
          }
          rounds = round - firstRound + 1;
          if (rounds == ROUNDS_BEFORE_CHECK) {
            warmedUp.countDown();
          }
        }
      } catch (IOException e) {
        failure = e;
      } finally {
        warmedUp.countDown();
      }
    }
  }

  /** No writer failed; a reply that never came fails with what the daemon's threads were doing. */
  private static void assertNoneFailed(OsdProcess osd, List<Writer> writers) {
    for (Writer w : writers) {
      if (w.failure instanceof java.net.SocketTimeoutException) {
        throw new AssertionError(
            "connection " + w.connection + " got no reply:\n" + osd.hangReport(), w.failure);
      }
      assertEquals(null, w.failure, "connection " + w.connection);
    }
  }

  /** Every block acknowledged by {@code writers} holds that version or a newer one of its own. */
  private static void verify(OsdProcess osd, int port, List<Writer> writers) throws IOException {
    try (NbdWire nbd = NbdWire.connect(port, "vol")) {
      for (int block = 0; block < BLOCKS; block++) {
        int acked = writers.get(block % CONNECTIONS).acked[block];
        byte[] read;
        try {
          read = nbd.read((long) block * BLOCK, BLOCK);
        } catch (java.net.SocketTimeoutException e) {
          throw new AssertionError(
              "no reply to the read of block " + block + ":\n" + osd.hangReport(), e);
        }
        int round = ByteBuffer.wrap(read).getInt(12);
        if (acked == 0 && ByteBuffer.wrap(read).getLong() != MAGIC) {
          continue; // never acknowledged, never landed
        }
        assertTrue(round >= acked, "block " + block + ": round " + round + " < acked " + acked);
        assertTrue(
            java.util.Arrays.equals(content(block, round), read),
            "block " + block + " is not round " + round + " intact");
      }
    }
  }

  /** Voluntary plus involuntary context switches of each thread of {@code pid}, by name. */
  static Map<String, Long> switchesByThread(long pid) throws IOException {
    Map<String, Long> switches = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          long total = 0;
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")
                || line.startsWith("nonvoluntary_ctxt_switches:")) {
              total += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
          }
          switches.merge(name, total, Long::sum);
        } catch (IOException e) {
          // The thread ended meanwhile.
        }
      }
    }
    return switches;
  }

  private static List<Writer> startWriters(
      int port, AtomicBoolean stop, CountDownLatch warmedUp, List<Thread> threads, int firstRound) {
    List<Writer> writers = new ArrayList<>();
    for (int c = 0; c < CONNECTIONS; c++) {
      Writer writer = new Writer(c, port, stop, warmedUp, firstRound);
      writers.add(writer);
      threads.add(Thread.ofPlatform().name("nbd-writer-" + c).start(writer));
    }
    return writers;
  }

  @ParameterizedTest(name = "--engine {0}")
  @ValueSource(strings = {"classic", "classic --journal-flush fdatasync"})
  void manyConnectionsAcrossOpShardsThenKillNineMidLoad(String engine) throws Exception {
    Path data = dir.resolve("osd.0");
    StoreFormat.mkfs(data, 8, 48L << 20, StoreFormat.defaultSegmentBytes(48L << 20));
    List<Writer> writers;
    try (OsdProcess osd = start(data, engine)) {
      int[] ports = ports(osd);
      String layout = osd.awaitLine("classic engine:", STOP);
      assertTrue(layout.contains("osd-op-7-1"), layout);
      try (OsdProcess image =
          OsdProcess.start(
              "image", "--osd", "127.0.0.1:" + ports[0], "create", "vol", "--size", "32M")) {
        assertEquals(0, image.awaitExit(STOP), image.output());
      }
      Map<String, Long> before = switchesByThread(osd.pid());

      // Phase 1: the connections' writes interleave over every PG; all of them read back.
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch warmedUp = new CountDownLatch(CONNECTIONS);
      List<Thread> threads = new ArrayList<>();
      writers = startWriters(ports[1], stop, warmedUp, threads, 1);
      assertTrue(warmedUp.await(120, TimeUnit.SECONDS), "writers stalled: " + osd.output());
      stop.set(true);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(60));
      }
      assertNoneFailed(osd, writers);
      for (Writer w : writers) {
        assertTrue(w.rounds >= ROUNDS_BEFORE_CHECK, "connection " + w.connection);
      }
      verify(osd, ports[1], writers);
      Map<String, Long> after = switchesByThread(osd.pid());
      // Every PG (store shard) the image's pieces landed on was served by its op shard's workers;
      // with 8 op shards, PG p is op shard p. Both workers of a busy queue take ops.
      String metrics = Scrape.metrics(ports[2]);
      int written = 0;
      for (int p = 0; p < 8; p++) {
        if (Scrape.sum(metrics, "tidestore_store_user_written_bytes_total{shard=\"" + p + "\"")
            == 0) {
          continue;
        }
        written++;
        for (int t = 0; t < 2; t++) {
          String name = "osd-op-" + p + "-" + t;
          long worked = after.getOrDefault(name, 0L) - before.getOrDefault(name, 0L);
          assertTrue(worked >= 20, name + " served PG " + p + " idle: " + after);
        }
      }
      assertTrue(written >= 2, "the image's writes reached " + written + " PGs");
      for (String role : List.of("commit", "finisher", "io-0", "msgr-0")) {
        assertTrue(after.getOrDefault(role, 0L) > before.getOrDefault(role, 0L), role + after);
      }

      // Phase 2: SIGKILL while every connection has writes in flight.
      AtomicBoolean never = new AtomicBoolean();
      CountDownLatch running = new CountDownLatch(CONNECTIONS);
      List<Thread> loaders = new ArrayList<>();
      // Rounds from a million on: newer than any of phase 1, so "at least the newest
      // acknowledged version" stays a round comparison.
      List<Writer> load = startWriters(ports[1], never, running, loaders, 1_000_000);
      assertTrue(running.await(120, TimeUnit.SECONDS), "writers stalled: " + osd.output());
      // Every connection is still being served when the kill comes: a write left without its
      // reply (the I/O thread never woke for a completion) fails here, not as a slow kill.
      assertNoneFailed(osd, load);
      osd.signal("KILL");
      assertEquals(137, osd.awaitExit(STOP));
      for (Thread t : loaders) {
        t.join(TimeUnit.SECONDS.toMillis(60));
      }
      // What phase 2 acknowledged supersedes phase 1's for the same block.
      for (int c = 0; c < CONNECTIONS; c++) {
        for (int b = 0; b < BLOCKS; b++) {
          if (load.get(c).acked[b] > 0) {
            writers.get(c).acked[b] = load.get(c).acked[b];
          }
        }
      }
    }
    try (OsdProcess osd = start(data, engine)) {
      int[] ports = ports(osd);
      verify(osd, ports[1], writers);
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
