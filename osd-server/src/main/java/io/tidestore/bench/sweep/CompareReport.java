package io.tidestore.bench.sweep;

import io.tidestore.bench.report.Charts;
import io.tidestore.bench.report.SeedTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Several run directories in one report, like the seeds' "Seastore vs Classic": per workload, the
 * runs' response-latency curves overlaid in one chart, a summary of the peak point of each run, and
 * each run's full table.
 */
public final class CompareReport {
  private CompareReport() {}

  /** One run to compare, under the label it gets in the report. */
  public record Run(String label, Path dir) {}

  /** Writes {@code out}/compare.md and {@code out}/charts/; returns the report's path. */
  public static Path write(Path out, List<Run> runs) throws IOException {
    Path charts = Files.createDirectories(out.resolve("charts"));
    Map<Run, Map<String, List<PointRecord>>> data = new LinkedHashMap<>();
    Map<Run, RunInfo> infos = new LinkedHashMap<>();
    Set<String> workloads = new LinkedHashSet<>();
    for (Run run : runs) {
      RunInfo info = RunReport.info(run.dir());
      infos.put(run, info);
      Map<String, List<PointRecord>> byWorkload = RunReport.byWorkload(RunReport.points(run.dir()));
      data.put(run, byWorkload);
      workloads.addAll(byWorkload.keySet());
    }
    StringBuilder md = new StringBuilder("# Comparison: ");
    md.append(String.join(" vs ", runs.stream().map(Run::label).toList())).append("\n\n");
    md.append("| run | directory | target | load generator |\n| --- | --- | --- | --- |\n");
    for (Run run : runs) {
      RunInfo info = infos.get(run);
      md.append("| ")
          .append(run.label())
          .append(" | ")
          .append(run.dir())
          .append(" | `")
          .append(info.target())
          .append("` | ")
          .append(info.pinning())
          .append(" |\n");
    }
    for (String workload : workloads) {
      md.append("\n## ").append(workload).append("\n\n");
      List<Charts.Curve> curves = new ArrayList<>();
      String axis = "IOPS";
      md.append("| run | peak ")
          .append("throughput | at iodepth | clat_ms | OSD_cpu | throughput per OSD core ")
          .append("| µs OSD CPU per op | context switches per op |\n")
          .append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
      for (Run run : runs) {
        List<PointRecord> points = data.get(run).get(workload);
        if (points == null || points.isEmpty()) {
          md.append("| ").append(run.label()).append(" | not run | | | | | | |\n");
          continue;
        }
        axis = RunReport.axis(points);
        double hide = infos.get(run).hideLatencyMs();
        curves.add(RunReport.curve(run.label(), points, hide));
        PointRecord peak = peak(points, hide);
        if (peak == null) {
          md.append("| ").append(run.label()).append(" | every point hidden | | | | | | |\n");
          continue;
        }
        double throughput = throughput(peak);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %.2f %s | %d | %.3f | %.1f | %s | %s | %s |%n",
                run.label(),
                throughput,
                axis.startsWith("IOPS") ? "IOPS" : "MiB/s",
                peak.iodepth(),
                peak.metrics().clatMeanMs(),
                peak.serverCpuPercent(),
                Double.isNaN(peak.serverCpuPercent()) || peak.serverCpuPercent() <= 0
                    ? "n/a"
                    : String.format(
                        Locale.ROOT, "%.2f", throughput / (peak.serverCpuPercent() / 100.0)),
                orNa("%.1f", peak.serverCpuMicrosPerOp()),
                orNa("%.2f", peak.serverContextSwitchesPerOp())));
      }
      Charts.responseLatency(
          charts.resolve(workload + "-latency"),
          workload + ": " + String.join(" vs ", runs.stream().map(Run::label).toList()),
          axis,
          curves);
      md.append("\n![")
          .append(workload)
          .append("](charts/")
          .append(workload)
          .append("-latency.png)\n");
      for (Run run : runs) {
        List<PointRecord> points = data.get(run).get(workload);
        if (points == null || points.isEmpty()) {
          continue;
        }
        md.append("\n### ").append(run.label()).append(" - ").append(workload).append("\n\n");
        md.append(
            SeedTable.render(
                points.getFirst().blockSize(),
                RunReport.rows(points),
                infos.get(run).hideLatencyMs()));
      }
    }
    Path report = out.resolve("compare.md");
    Files.writeString(report, md.toString(), StandardCharsets.UTF_8);
    return report;
  }

  private static String orNa(String format, double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value);
  }

  private static double throughput(PointRecord p) {
    return p.blockSize() >= SeedTable.BANDWIDTH_FROM_BLOCK_SIZE
        ? p.metrics().bandwidthMiBs()
        : p.metrics().iops();
  }

  private static PointRecord peak(List<PointRecord> points, double hideLatencyMs) {
    PointRecord best = null;
    for (PointRecord p : points) {
      if (p.metrics().clatMeanMs() <= hideLatencyMs
          && (best == null || throughput(p) > throughput(best))) {
        best = p;
      }
    }
    return best;
  }
}
