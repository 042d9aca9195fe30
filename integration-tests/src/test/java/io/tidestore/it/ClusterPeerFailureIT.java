package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitMonReady;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.osdMetricsPort;
import static io.tidestore.it.ClusterProcesses.startMon;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peer heartbeats between real processes: an OSD that keeps heartbeating the monitor but that its
 * peers cannot reach is marked down on their failure reports alone. One monitor ({@code --tls on},
 * grace 2 s) and three OSDs, two plaintext and one under {@code --tls require}: that one reaches
 * the monitor over TLS, but its object port refuses the others' plaintext pings (Ceph's classic
 * case of a broken cluster network beside a working public one). Both plaintext OSDs report it, the
 * monitor logs that it marks it down for their reports (not for missing heartbeats) and counts the
 * reports; its own reports about them, one reporter of the two needed, mark no one down.
 *
 * <p>Stopping an OSD (SIGSTOP) would silence its monitor heartbeats as well, and the monitor's own
 * rule, with the same grace, often marks it down before the peers' reports arrive: it would not
 * show that the reports work.
 */
class ClusterPeerFailureIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void anOsdItsPeersCannotReachIsMarkedDownOnTheirReports() throws Exception {
    Path pki = dir.resolve("pki");
    OsdProcess.run("tls", "init", "--dir", pki.toString());
    int port = ClusterProcesses.freePortPair();
    String monitors = "127.0.0.1:" + port;
    String[] tls = {"--tls-certificates", pki.toString()};
    try (OsdProcess mon =
        startMon(
            "a",
            dir.resolve("mon.a"),
            port,
            null,
            "--osd-heartbeat-grace",
            "2s",
            "--failure-domain",
            "osd",
            "--tls",
            "on",
            tls[0],
            tls[1])) {
      List<OsdProcess> started = new ArrayList<>();
      try {
        // The plaintext ones start with the monitor (they retry their boot until it serves), the
        // other once both are in the map: until then the cluster has two OSDs, and either one's
        // word would be enough to mark the other down.
        started.add(startOsd(dir.resolve("plain.0"), monitors));
        started.add(startOsd(dir.resolve("plain.1"), monitors));
        int monMetrics = awaitMonReady(mon);
        Map<Integer, OsdProcess> plain = new TreeMap<>();
        plain.put(awaitRegistered(started.get(0)), started.get(0));
        plain.put(awaitRegistered(started.get(1)), started.get(1));
        started.add(startOsd(dir.resolve("tls"), monitors, "--tls", "require", tls[0], tls[1]));
        OsdProcess unreachable = started.get(2);
        int victim = awaitRegistered(unreachable);

        // "marking down osd.2 (osd.2: failure reports from osd.0, osd.1)": why, for each OSD.
        String line = mon.awaitLine("osd." + victim + ": failure reports from", WAIT);
        String why = line.substring(line.indexOf("osd." + victim + ": failure reports from"));
        why = why.split("[;)]")[0];
        for (int reporter : plain.keySet()) {
          assertTrue(why.contains("osd." + reporter), line);
          assertTrue(
              mon.output().contains("osd." + reporter + " reports osd." + victim + " failed"),
              mon.output());
        }
        assertFalse(why.contains("no heartbeat"), "its heartbeats reached the monitor: " + line);
        Scrape.awaitSumAtLeast(
            monMetrics, "tidestore_mon_osd_failure_reports_total{kind=\"failed\"", 2);
        for (OsdProcess reporter : plain.values()) {
          int metrics = osdMetricsPort(reporter);
          Scrape.awaitSumAtLeast(metrics, "tidestore_osd_heartbeat_peer_misses_total", 1);
          assertTrue(
              reporter.output().contains("osd." + victim + " has not answered heartbeats"),
              reporter.output());
        }
        unreachable.awaitLine("marks this OSD down while it runs", WAIT);
        assertTrue(unreachable.isAlive());
        assertEquals(2, plain.size());
      } finally {
        for (OsdProcess osd : started) {
          osd.close();
        }
      }
    }
  }
}
