package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write above the advertised maximum block size, sent by libnbd itself (its Python binding, the
 * library under nbdsh): the daemon reads and drops the payload, then answers EINVAL, and the
 * connection stays usable, as nbdkit does. Before, the refusal went out while the client was still
 * sending, and libnbd dropped the connection ("no matching cookie found for server reply").
 */
class NbdOverLimitWriteIT {
  private static final Duration STOP = Duration.ofSeconds(60);

  /** Debian's libnbd binding lives in the system Python, not in one first on PATH. */
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  @TempDir Path dir;

  @Test
  void overLimitWritesAreRefusedAfterTheirPayloadAndTheConnectionStays() throws Exception {
    RequiredTools.file(Path.of("/usr/lib/python3/dist-packages/nbd.py"), "python3-libnbd");
    Path data = dir.resolve("osd");
    try (OsdProcess mkfs =
        OsdProcess.start(
            "mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "128m")) {
      assertEquals(0, mkfs.awaitExit(STOP), mkfs.output());
    }
    try (OsdProcess osd = OsdProcess.startOsd(data, "--cache-size", "64m")) {
      String ready = osd.awaitLine("tidestore osd ready", STOP);
      Matcher object = Pattern.compile("object=(\\d+)").matcher(ready);
      Matcher nbd = Pattern.compile("nbd=(\\d+)").matcher(ready);
      assertTrue(object.find() && nbd.find(), ready);
      try (OsdProcess create =
          OsdProcess.start(
              "image", "--osd", "127.0.0.1:" + object.group(1), "create", "v", "--size", "80M")) {
        assertEquals(0, create.awaitExit(STOP), create.output());
      }
      Path script =
          Path.of(
              OsdProcess.ROOT.toString(),
              "integration-tests",
              "src",
              "test",
              "resources",
              "nbd",
              "over-limit-write.py");
      Process client =
          new ProcessBuilder(
                  PYTHON.toString(),
                  "-m",
                  "nbd",
                  "-u",
                  "nbd://127.0.0.1:" + nbd.group(1) + "/v",
                  "-c",
                  Files.readString(script))
              .redirectErrorStream(true)
              .start();
      String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, client.waitFor(), out);
      assertTrue(out.contains("connection usable"), out);
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
  }
}
