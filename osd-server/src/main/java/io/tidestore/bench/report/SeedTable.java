package io.tidestore.bench.report;

import io.tidestore.bench.result.PointMetrics;
import java.util.List;
import java.util.Locale;

/**
 * The seed reports' table, in Markdown: {@code iodepth | iops (or bw) | total_ios | clat_ms |
 * clat_stdev | usr_cpu | sys_cpu | OSD_cpu | OSD_mem}, plus p50/p99. IOPS for small-block
 * workloads, bandwidth in MiB/s for 64 KiB and larger, as the seeds print them. Points whose mean
 * latency exceeds the cut-off (1 s in seed 003) are left out and counted in a note.
 */
public final class SeedTable {
  /** Seed 003: "If the latency is higher than 1 sec, the data point is not shown." */
  public static final double DEFAULT_MAX_LATENCY_MS = 1000;

  /** Block sizes from this up are reported as bandwidth. */
  public static final long BANDWIDTH_FROM_BLOCK_SIZE = 64 * 1024;

  /** One row: the point's iodepth, fio-side metrics and the server's CPU and memory. */
  public record Row(int iodepth, PointMetrics metrics, double osdCpuPercent, double osdMemMiB) {}

  private SeedTable() {}

  public static String render(long blockSize, List<Row> rows, double maxLatencyMs) {
    boolean bandwidth = blockSize >= BANDWIDTH_FROM_BLOCK_SIZE;
    StringBuilder sb = new StringBuilder();
    sb.append("| iodepth | ")
        .append(bandwidth ? "bw" : "iops")
        .append(
            " | total_ios | clat_ms | clat_stdev | usr_cpu | sys_cpu | OSD_cpu | OSD_mem | p50_ms |"
                + " p99_ms |\n");
    sb.append("| ---".repeat(11)).append(" |\n");
    int hidden = 0;
    for (Row row : rows) {
      PointMetrics m = row.metrics();
      if (m.clatMeanMs() > maxLatencyMs) {
        hidden++;
        continue;
      }
      sb.append("| ")
          .append(row.iodepth())
          .append(" | ")
          .append(f2(bandwidth ? m.bandwidthMiBs() : m.iops()))
          .append(" | ")
          .append(m.totalIos())
          .append(" | ")
          .append(f2(m.clatMeanMs()))
          .append(" | ")
          .append(f2(m.clatStdevMs()))
          .append(" | ")
          .append(f2(m.usrCpu()))
          .append(" | ")
          .append(f2(m.sysCpu()))
          .append(" | ")
          .append(f2(row.osdCpuPercent()))
          .append(" | ")
          .append(f2(row.osdMemMiB()))
          .append(" | ")
          .append(f3(m.clatP50Ms()))
          .append(" | ")
          .append(f3(m.clatP99Ms()))
          .append(" |\n");
    }
    if (hidden > 0) {
      sb.append("\n")
          .append(hidden)
          .append(hidden == 1 ? " point" : " points")
          .append(" with mean latency above ")
          .append(f2(maxLatencyMs))
          .append(" ms not shown.\n");
    }
    return sb.toString();
  }

  private static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String f3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
