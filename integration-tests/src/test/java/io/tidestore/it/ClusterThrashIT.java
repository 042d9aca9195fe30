package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.local.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thrasher against {@code cluster up}: OSDs killed with SIGKILL and restarted at random under a
 * verifying load, and {@code thrash} exits 0 (no acknowledged write lost, stale or corrupt, and
 * every object readable at the end), then a second, short run on the same cluster. Short here
 * ({@code -Dtidestore.thrash.minutes=N} runs longer). Around it, {@code cluster up} with its
 * defaults starts a monitor and three OSDs as detached processes and says how to reach them, {@code
 * status --dir} finds them, and {@code cluster down} stops every one, the OSDs the thrasher
 * restarted too.
 */
class ClusterThrashIT {
  @TempDir Path dir;

  @Test
  void thrashingOsdsLosesNothing() throws Exception {
    Path cluster = dir.resolve("c");
    // 36 s in the fast suite, which the issue gives 8 minutes for every cluster test together.
    String minutes = System.getProperty("tidestore.thrash.minutes", "0.6");
    List<Long> pids = new ArrayList<>();
    boolean down = false;
    try {
      ClusterProcesses.clusterUp(cluster, 1, 3, false, pids);
      OsdProcess thrash =
          OsdProcess.start(
              "thrash", "--dir", cluster.toString(), "--minutes", minutes, "--seed", "5");
      int exit =
          thrash.awaitExit(Duration.ofSeconds((long) (Double.parseDouble(minutes) * 60) + 600));
      pids.addAll(ClusterProcesses.startedPids(thrash));
      assertEquals(0, exit, thrash.output());
      assertTrue(thrash.output().contains(" 0 violations"), thrash.output());
      // A second run on the same cluster goes on from the versions the first one left.
      OsdProcess again =
          OsdProcess.start(
              "thrash", "--dir", cluster.toString(), "--minutes", "0.1", "--seed", "6");
      int againExit = again.awaitExit(Duration.ofMinutes(10));
      pids.addAll(ClusterProcesses.startedPids(again));
      assertEquals(0, againExit, again.output());
      assertTrue(again.output().contains("objects go on from the versions"), again.output());
      assertTrue(again.output().contains(" 0 violations"), again.output());
      for (LocalCluster.Daemon daemon : LocalCluster.read(cluster).daemons()) {
        if (!pids.contains(daemon.pid())) {
          pids.add(daemon.pid());
        }
      }
      down = true;
      ClusterProcesses.clusterDown(cluster, pids);
    } finally {
      if (!down) {
        OsdProcess.run("cluster", "down", "--dir", cluster.toString());
      }
      ClusterProcesses.destroy(pids);
    }
  }
}
