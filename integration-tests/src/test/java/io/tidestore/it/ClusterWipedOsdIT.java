package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import io.tidestore.store.testing.RequiredTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wiped OSD loses nothing (one monitor, three OSDs, pool rbd of size 3 and min_size 2): objects
 * and an image are written; each OSD in turn is killed with SIGKILL, its data directory deleted,
 * and it is started again with its old {@code --id}; it comes back under that id and is backfilled
 * by the cluster itself (no client touches a PG meanwhile) until it holds every object of its PGs
 * and every member has the same log. Only then is the next one wiped, so after the third every byte
 * lives on copies that backfill made: everything reads back exactly.
 */
class ClusterWipedOsdIT {
  private static final String POOL = "rbd";
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void everyOsdWipedInTurnAndBackfilledLosesNothing() throws Exception {
    RequiredTools.command("nbdcopy", "libnbd-bin");
    try (ClusterProcesses.Cluster cluster = ClusterProcesses.startCluster(dir, 3);
        ClusterClient client = cluster.client(Duration.ofMinutes(2));
        PgProbe probe = new PgProbe()) {
      String monitors = cluster.monitors();
      Random r = new Random(17);
      ClusterObjects objects = new ClusterObjects(POOL);
      objects.write(client, r, "w", 40);
      // More writes to one object than a PG log keeps: its PG's wiped copy needs a real backfill
      // (the log was trimmed), the others' a log-based recovery from an empty log.
      objects.rewrite(client, r, "hot", 1010);
      ClusterGateway.createImage(monitors, "vol0", 4 * MIB);
      byte[] image = new byte[4 * MIB];
      r.nextBytes(image);
      try (ClusterGateway gateway = ClusterGateway.start(monitors)) {
        gateway.write("vol0", image, dir);
      }

      for (int id : new TreeSet<>(cluster.osds().keySet())) {
        cluster.osds().get(id).kill9();
        assertTrue(
            client.awaitMap(m -> !m.osds().get(id).up(), Duration.ofSeconds(30)),
            "osd." + id + " marked down");
        deleteRecursively(cluster.data().get(id));
        cluster.restartOsd(id, "--id", Integer.toString(id));
        assertTrue(
            client.awaitMap(m -> m.numUp() == 3, Duration.ofSeconds(30)), "osd." + id + " up");
        int member = PgProbe.pgsOf(client.map(), POOL, id).size();
        ClusterProcesses.awaitPgsSettled(cluster.osds().get(id), member);
        ClusterProcesses.awaitActiveClean(cluster.monitors(), Duration.ofSeconds(120));
        probe.awaitAgreement(client, POOL, Duration.ofSeconds(60));
        assertEquals(List.of(), probe.differentObjects(client.map(), POOL, id), "osd." + id);
      }

      objects.verify(client);
      try (ClusterGateway gateway = ClusterGateway.start(monitors)) {
        assertArrayEquals(image, gateway.read("vol0", dir), "the image, from backfilled copies");
      }
    }
  }

  private static void deleteRecursively(Path root) throws Exception {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
