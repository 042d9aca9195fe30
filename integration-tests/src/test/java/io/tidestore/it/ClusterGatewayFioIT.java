package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import io.tidestore.store.testing.RequiredTools;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified fio writing and verifying (crc32c) an image through the NBD gateway of a cluster (one
 * monitor, three OSDs, pool rbd of size 3 and min_size 2) while one OSD is killed with SIGKILL in
 * the middle of the writes and restarted: fio sees no error and every block verifies; then another
 * OSD is killed and fio verifies the whole image again, now served by the restarted (recovered) OSD
 * and the last one.
 */
class ClusterGatewayFioIT {
  @TempDir Path dir;

  /** A random 4 KiB write job over the whole 8 MiB image, slowed so that the kill lands mid-way. */
  private static List<String> job(String uri, boolean verifyOnly) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "fio",
                "--output-format=normal",
                "--eta=always",
                "--eta-newline=1",
                "--name=gw",
                "--ioengine=nbd",
                "--uri=" + uri,
                "--rw=randwrite",
                "--bs=4k",
                "--iodepth=8",
                "--size=8m",
                "--verify=crc32c",
                "--verify_fatal=1"));
    args.add(verifyOnly ? "--verify_only" : "--rate_iops=300");
    return args;
  }

  @Test
  void fioVerifiesThroughTheGatewayWhileAnOsdIsKilledAndRestarted() throws Exception {
    RequiredTools.command("fio", "fio");
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3);
        ClusterClient client = cluster.client(Duration.ofSeconds(60))) {
      ClusterGateway.createImage(cluster.monitors(), "vol", 8 << 20);
      try (ClusterGateway gateway = ClusterGateway.start(cluster.monitors())) {
        String uri = gateway.uri("vol");
        int victim = cluster.osds().keySet().iterator().next();
        try (OsdProcess fio = OsdProcess.startCommand(job(uri, false).toArray(String[]::new))) {
          fio.awaitLine("[w(1)]", Duration.ofSeconds(60)); // writing
          cluster.osds().get(victim).kill9();
          assertTrue(
              client.awaitMap(m -> !m.osds().get(victim).up(), Duration.ofSeconds(30)),
              "osd." + victim + " marked down");
          cluster.restartOsd(victim);
          assertEquals(0, fio.awaitExit(Duration.ofMinutes(3)), fio.output());
          assertTrue(fio.output().contains("err= 0"), fio.output());
        }
        ClusterProcesses.awaitActiveClean(cluster.monitors(), Duration.ofSeconds(120));
        int other =
            cluster.osds().keySet().stream().filter(id -> id != victim).findFirst().orElseThrow();
        cluster.osds().get(other).kill9();
        try (OsdProcess fio = OsdProcess.startCommand(job(uri, true).toArray(String[]::new))) {
          assertEquals(0, fio.awaitExit(Duration.ofMinutes(3)), fio.output());
          assertTrue(fio.output().contains("err= 0"), fio.output());
        }
      }
    }
  }
}
