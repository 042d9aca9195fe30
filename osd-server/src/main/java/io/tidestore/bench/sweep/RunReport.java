package io.tidestore.bench.sweep;

import io.tidestore.bench.report.Charts;
import io.tidestore.bench.report.SeedTable;
import io.tidestore.bench.result.ThreadCpuSampler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes a run directory's {@code report.md} and charts from its points. */
public final class RunReport {
  private RunReport() {}

  /** Reads {@code run.json}; used by the report and by compare. */
  public static RunInfo info(Path runDir) throws IOException {
    return SweepRunner.JSON.readValue(runDir.resolve("run.json").toFile(), RunInfo.class);
  }

  /** Reads every point of a run directory, in run order (by file time, then name). */
  public static List<PointRecord> points(Path runDir) throws IOException {
    RunInfo info = info(runDir);
    List<PointRecord> points = new ArrayList<>();
    for (String workload : info.workloads()) {
      for (int iodepth : info.iodepths()) {
        Path file = runDir.resolve("points").resolve(workload + "-qd" + iodepth + ".json");
        if (Files.exists(file)) {
          points.add(SweepRunner.JSON.readValue(file.toFile(), PointRecord.class));
        }
      }
    }
    return points;
  }

  /** Groups points by workload, keeping run order. */
  static Map<String, List<PointRecord>> byWorkload(List<PointRecord> points) {
    Map<String, List<PointRecord>> groups = new LinkedHashMap<>();
    for (PointRecord p : points) {
      groups.computeIfAbsent(p.workload(), k -> new ArrayList<>()).add(p);
    }
    return groups;
  }

  /** The curve of one workload, hidden points left out. */
  static Charts.Curve curve(String label, List<PointRecord> points, double hideLatencyMs) {
    List<Charts.CurvePoint> curve = new ArrayList<>();
    for (PointRecord p : points) {
      if (p.metrics().clatMeanMs() > hideLatencyMs) {
        continue;
      }
      boolean bandwidth = p.blockSize() >= SeedTable.BANDWIDTH_FROM_BLOCK_SIZE;
      curve.add(
          new Charts.CurvePoint(
              p.iodepth(),
              bandwidth ? p.metrics().bandwidthMiBs() : p.metrics().iops(),
              p.metrics().clatMeanMs(),
              p.metrics().clatStdevMs()));
    }
    return new Charts.Curve(label, curve);
  }

  static List<SeedTable.Row> rows(List<PointRecord> points) {
    return points.stream()
        .map(
            p ->
                new SeedTable.Row(p.iodepth(), p.metrics(), p.serverCpuPercent(), p.serverRssMiB()))
        .toList();
  }

  static String axis(List<PointRecord> points) {
    return points.getFirst().blockSize() >= SeedTable.BANDWIDTH_FROM_BLOCK_SIZE
        ? "bandwidth (MiB/s)"
        : "IOPS";
  }

  /** Writes report.md and charts/ for the points of {@code runDir}. */
  public static void write(Path runDir, List<PointRecord> points) throws IOException {
    RunInfo info = info(runDir);
    Path charts = Files.createDirectories(runDir.resolve("charts"));
    StringBuilder md = new StringBuilder();
    md.append("# Sweep: ").append(info.label()).append("\n\n");
    md.append("- started: ").append(info.started()).append('\n');
    md.append("- target (job options): `").append(info.target()).append("`\n");
    md.append("- images: ")
        .append(info.images())
        .append(", jobs per image: ")
        .append(info.jobsPerImage())
        .append('\n');
    md.append("- per point: ")
        .append(info.runtimeSeconds())
        .append(" s measured after ")
        .append(info.rampSeconds())
        .append(" s ramp (excluded, also from the server's CPU/RSS averages)\n");
    md.append("- load generator: ").append(info.pinning()).append('\n');
    md.append("- server observed: ")
        .append(info.serverPid() == 0 ? "no (no --server-pid)" : "pid " + info.serverPid())
        .append('\n');
    md.append("- engine: ")
        .append(info.fioVersion())
        .append("; ")
        .append(info.host())
        .append("\n\n");
    md.append(
        "Columns as in the seed reports: lower case from fio, OSD_cpu in % of one core and"
            + " OSD_mem (RSS) in MiB from /proc of the server; p50/p99 are fio's completion-latency"
            + " percentiles.\n");
    for (var entry : byWorkload(points).entrySet()) {
      String workload = entry.getKey();
      List<PointRecord> list = entry.getValue();
      md.append("\n## ").append(workload).append("\n\n");
      md.append(SeedTable.render(list.getFirst().blockSize(), rows(list), info.hideLatencyMs()));
      Charts.responseLatency(
          charts.resolve(workload + "-latency"),
          workload + ": response latency (one point per iodepth)",
          axis(list),
          List.of(curve(info.label(), list, info.hideLatencyMs())));
      md.append("\n![")
          .append(workload)
          .append(" response latency](charts/")
          .append(workload)
          .append("-latency.png)\n");
      List<ThreadCpuSampler.Sample> samples =
          list.stream().flatMap(p -> p.samples().stream()).toList();
      if (!samples.isEmpty()) {
        Charts.cpuPerThread(
            charts.resolve(workload + "-cpu"),
            workload + ": server CPU per thread over the sweep",
            samples);
        md.append("\n![")
            .append(workload)
            .append(" CPU per thread](charts/")
            .append(workload)
            .append("-cpu.png)\n");
      }
    }
    Files.writeString(runDir.resolve("report.md"), md.toString(), StandardCharsets.UTF_8);
  }
}
