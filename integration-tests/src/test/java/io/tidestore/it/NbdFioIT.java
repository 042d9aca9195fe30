package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.engine.StoreFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Unmodified fio against the daemon's NBD export: random 4 KiB and sequential 64 KiB writes
 * verified with crc32c, then the daemon is killed with SIGKILL and restarted, and fio verifies
 * every acknowledged block again from the replayed store; in both engines, and in the reactor
 * engine on both Netty transports (io_uring: the shards' rings wake the loop through its own ring).
 */
class NbdFioIT {
  private static final Duration STOP = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static OsdProcess start(Path data, String engine) throws Exception {
    return OsdProcess.startEngine(data, engine);
  }

  private static int[] ports(OsdProcess osd) throws Exception {
    OsdProcess.Ports ports = osd.awaitPorts();
    return new int[] {ports.object(), ports.nbd()};
  }

  /** Runs fio with {@code args}; returns its output, failing on a non-zero exit. */
  private static String fio(List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of("fio", "--output-format=normal"));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fio did not finish");
    assertEquals(0, p.exitValue(), String.join(" ", command) + "\n" + out);
    return out;
  }

  /** A verified job over 16 MiB of the image from {@code offset}. */
  private static List<String> job(
      String uri, String rw, String bs, String offset, boolean verifyOnly) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--name=" + rw + bs,
                "--ioengine=nbd",
                "--uri=" + uri,
                "--rw=" + rw,
                "--bs=" + bs,
                "--iodepth=16",
                "--offset=" + offset,
                "--size=16m",
                "--verify=crc32c",
                "--verify_fatal=1"));
    if (verifyOnly) {
      args.add("--verify_only");
    }
    return args;
  }

  @ParameterizedTest(name = "--engine {0}")
  @ValueSource(strings = {"reactor", "classic", "reactor --transport io_uring"})
  void fioVerifiesWritesBeforeAndAfterKillNine(String engine) throws Exception {
    Path data = dir.resolve("osd.0");
    StoreFormat.mkfs(data, 2, 96L << 20, StoreFormat.defaultSegmentBytes(96L << 20));
    String uri;
    try (OsdProcess osd = start(data, engine)) {
      int[] ports = ports(osd);
      if (engine.contains("io_uring")) {
        assertTrue(osd.output().contains("reactor(s) on io_uring"), osd.output());
      }
      try (OsdProcess image =
          OsdProcess.start(
              "image", "--osd", "127.0.0.1:" + ports[0], "create", "vol", "--size", "32M")) {
        assertEquals(0, image.awaitExit(STOP), image.output());
      }
      uri = "nbd://127.0.0.1:" + ports[1] + "/vol";
      String random = fio(job(uri, "randwrite", "4k", "0", false));
      assertTrue(random.contains("err= 0"), random);
      String sequential = fio(job(uri, "write", "64k", "16m", false));
      assertTrue(sequential.contains("err= 0"), sequential);
      osd.signal("KILL");
      assertEquals(137, osd.awaitExit(STOP));
    }
    try (OsdProcess osd = start(data, engine)) {
      int[] ports = ports(osd);
      uri = "nbd://127.0.0.1:" + ports[1] + "/vol";
      // Both halves again, from the store as replayed after the kill: same seeds, same patterns.
      String random = fio(job(uri, "randwrite", "4k", "0", true));
      assertTrue(random.contains("err= 0"), random);
      String sequential = fio(job(uri, "write", "64k", "16m", true));
      assertTrue(sequential.contains("err= 0"), sequential);
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
