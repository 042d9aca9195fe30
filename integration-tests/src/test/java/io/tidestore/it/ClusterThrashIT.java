package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thrasher against {@code cluster up}: OSDs killed with SIGKILL and restarted at random under a
 * verifying load, and {@code thrash} exits 0 (no acknowledged write lost, stale or corrupt, and
 * every object readable at the end), then a second, short run on the same cluster. Short here
 * ({@code -Dtidestore.thrash.minutes=N} runs longer).
 */
class ClusterThrashIT {
  @TempDir Path dir;

  @Test
  void thrashingOsdsLosesNothing() throws Exception {
    Path cluster = dir.resolve("c");
    // 36 s in the fast suite, which the issue gives 8 minutes for every cluster test together.
    String minutes = System.getProperty("tidestore.thrash.minutes", "0.6");
    try {
      OsdProcess up = OsdProcess.start("cluster", "up", "--dir", cluster.toString(), "--osds", "3");
      assertEquals(0, up.awaitExit(Duration.ofMinutes(3)), up.output());
      OsdProcess thrash =
          OsdProcess.start(
              "thrash", "--dir", cluster.toString(), "--minutes", minutes, "--seed", "5");
      int exit =
          thrash.awaitExit(Duration.ofSeconds((long) (Double.parseDouble(minutes) * 60) + 600));
      assertEquals(0, exit, thrash.output());
      assertTrue(thrash.output().contains(" 0 violations"), thrash.output());
      // A second run on the same cluster goes on from the versions the first one left.
      OsdProcess again =
          OsdProcess.start(
              "thrash", "--dir", cluster.toString(), "--minutes", "0.1", "--seed", "6");
      assertEquals(0, again.awaitExit(Duration.ofMinutes(10)), again.output());
      assertTrue(again.output().contains("objects go on from the versions"), again.output());
      assertTrue(again.output().contains(" 0 violations"), again.output());
    } finally {
      OsdProcess.run("cluster", "down", "--dir", cluster.toString());
    }
  }
}
