package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tidestore sweep} with the real fio binary against a file target, observing a real daemon
 * process: the run directory must hold every artefact the seed reports have.
 */
class SweepIT {
  @TempDir Path dir;

  @Test
  void shortSweepWritesPointsReportAndCharts() throws Exception {
    Path run = dir.resolve("run");
    try (OsdProcess osd =
        OsdProcess.start(
            "osd",
            "--data",
            dir.resolve("osd").toString(),
            "--metrics-port",
            "0",
            "--port",
            "0",
            "--shards",
            "2",
            "--shard-size",
            "16m")) {
      OsdProcess.Ports ports = osd.awaitPorts();
      try (OsdProcess sweep =
          OsdProcess.start(
              "sweep",
              "--fio-target",
              "ioengine=io_uring,direct=1,size=32m,filename=" + dir.resolve("img{image}"),
              "--workloads",
              "randread4k,seqwrite64k",
              "--iodepths",
              "1,4",
              "--runtime",
              "1",
              "--ramp",
              "1",
              "--server-pid",
              Long.toString(osd.pid()),
              "--server-metrics",
              "http://127.0.0.1:" + ports.metrics() + "/metrics",
              "--label",
              "it",
              "--out",
              run.toString())) {
        assertEquals(0, sweep.awaitExit(Duration.ofSeconds(120)), sweep.output());
        assertTrue(sweep.output().contains("[4/4] seqwrite64k iodepth=4"), sweep.output());
        assertTrue(sweep.output().contains("prefill"), sweep.output());
      }
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(Duration.ofSeconds(20)));
    }
    for (String file :
        new String[] {
          "run.json",
          "jobs/prefill.fio",
          "jobs/randread4k-qd1.fio",
          "points/randread4k-qd1.json",
          "points/randread4k-qd4.fio.json",
          "points/seqwrite64k-qd4.json",
          "charts/randread4k-latency.png",
          "charts/randread4k-latency.svg",
          "charts/seqwrite64k-cpu.png",
          "charts/seqwrite64k-cpu.svg"
        }) {
      assertTrue(Files.size(run.resolve(file)) > 0, file);
    }
    String report = Files.readString(run.resolve("report.md"));
    assertTrue(
        report.contains(
            "| iodepth | iops | total_ios | clat_ms | clat_stdev | usr_cpu | sys_cpu | OSD_cpu |"
                + " OSD_mem | p50_ms | p99_ms |"),
        report);
    assertTrue(report.contains("| iodepth | bw |"), report);
    assertTrue(report.contains("server observed: pid"), report);
    String point = Files.readString(run.resolve("points/randread4k-qd4.json"));
    assertTrue(point.contains("\"serverRssMiB\""), point);
    assertTrue(point.contains("\"iodepth\" : 4"), point);
    // Scraped with each sample: the reactors' utilization beside their CPU.
    assertTrue(point.contains("\"reactorUtilization\" : {\n"), point);
    assertTrue(point.contains("\"reactor-0\" : "), point);
    // And the server's context switches, summed over its threads, per sample and per op.
    assertTrue(
        java.util.regex.Pattern.compile("\"contextSwitchesPerSecond\" : [0-9]")
            .matcher(point)
            .find(),
        point);
    assertTrue(point.contains("\"serverContextSwitchesPerOp\" : "), point);

    Path compared = dir.resolve("compare");
    try (OsdProcess compare =
        OsdProcess.start(
            "compare",
            run.toString(),
            run.toString(),
            "--labels",
            "A,B",
            "--out",
            compared.toString())) {
      assertEquals(0, compare.awaitExit(Duration.ofSeconds(60)), compare.output());
    }
    String md = Files.readString(compared.resolve("compare.md"));
    assertTrue(md.startsWith("# Comparison: A vs B"), md);
    assertTrue(md.contains("### B - seqwrite64k"), md);
    assertTrue(md.contains("| µs OSD CPU per op | context switches per op |"), md);
    assertTrue(Files.size(compared.resolve("charts/randread4k-latency.svg")) > 0);
  }

  @Test
  void unknownWorkloadAndBadTargetAreUsageErrors() throws Exception {
    try (OsdProcess sweep = OsdProcess.start("sweep", "--workloads", "nosuch")) {
      assertEquals(2, sweep.awaitExit(Duration.ofSeconds(30)));
      assertTrue(sweep.output().contains("no workload 'nosuch'"), sweep.output());
    }
    try (OsdProcess sweep = OsdProcess.start("sweep", "--fio-target", "uri=x")) {
      assertEquals(2, sweep.awaitExit(Duration.ofSeconds(30)));
      assertTrue(sweep.output().contains("needs an ioengine"), sweep.output());
    }
  }
}
