package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A child JVM (the test fixture {@code StoreTorture}, on the daemon's classpath) writes random
 * block runs to a real store on disk and reports every acknowledged write; it is SIGKILLed
 * mid-stream and restarted several times. After each restart every block must hold at least the
 * newest acknowledged version, intact, and fsck must find the store clean at the end. 4 kills in
 * the suite, 100 with {@code -Dtidestore.long=true} (docs/reliability.md).
 */
class StoreCrashIT {
  private static final int OBJECTS = 8;
  private static final int BLOCKS = 64;
  private Path dir;

  @AfterEach
  void cleanUp() throws IOException {
    if (dir != null) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Test
  void acknowledgedWritesSurviveKillDashNine() throws Exception {
    // O_DIRECT needs a real file system; /tmp may be tmpfs.
    dir = Files.createTempDirectory(Path.of("/var/tmp"), "store-crash-it");
    try (OsdProcess mkfs =
        OsdProcess.start(
            "mkfs", "--data", dir.toString(), "--shards", "2", "--shard-size", "16M")) {
      assertEquals(0, mkfs.awaitExit(Duration.ofSeconds(60)), mkfs.output());
    }
    long[][] acked = new long[OBJECTS][BLOCKS];
    int kills = Boolean.getBoolean("tidestore.long") ? 100 : 4;
    for (int round = 0; round <= kills; round++) {
      try (OsdProcess child =
          OsdProcess.startFixture(
              "io.tidestore.store.testing.StoreTorture", "--data", dir.toString())) {
        child.awaitLine("READY", Duration.ofSeconds(60));
        List<String> lines = child.lines();
        int states = 0;
        for (String l : lines) {
          assertTrue(!l.startsWith("CORRUPT") && !l.startsWith("ERROR"), l);
          if (l.startsWith("STATE ")) {
            String[] f = l.split(" ");
            int o = Integer.parseInt(f[1]);
            int b = Integer.parseInt(f[2]);
            long v = Long.parseLong(f[3]);
            assertTrue(
                v >= acked[o][b],
                "round "
                    + round
                    + ": object "
                    + o
                    + " block "
                    + b
                    + " holds version "
                    + v
                    + ", but "
                    + acked[o][b]
                    + " was acknowledged");
            states++;
          }
        }
        assertEquals(OBJECTS * BLOCKS, states);
        if (round == kills) {
          child.kill9();
          break;
        }
        // Each life writes a little more than the last, in cycles of 5, so long runs stay short.
        assertTrue(
            child.awaitCount("ACK ", 300 + 200 * (round % 5), Duration.ofSeconds(20)),
            "child made too little progress:\n" + child.output());
        child.kill9();
        for (String l : child.lines()) {
          assertTrue(!l.startsWith("ERROR"), l);
          if (l.startsWith("ACK ")) {
            String[] f = l.split(" ");
            int o = Integer.parseInt(f[1]);
            int b = Integer.parseInt(f[2]);
            int n = Integer.parseInt(f[3]);
            long v = Long.parseLong(f[4]);
            for (int i = 0; i < n; i++) {
              acked[o][b + i] = Math.max(acked[o][b + i], v);
            }
          }
        }
      }
    }
    try (OsdProcess fsck = OsdProcess.start("fsck", "--data", dir.toString())) {
      assertEquals(0, fsck.awaitExit(Duration.ofSeconds(60)), fsck.output());
    }
  }
}
