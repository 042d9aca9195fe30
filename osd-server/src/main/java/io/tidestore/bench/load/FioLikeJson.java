package io.tidestore.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.bench.job.ByteSize;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Writes a {@link NativeBench.Outcome} as fio's {@code --output-format=json} does, with the fields
 * {@link io.tidestore.bench.result.FioJson} and the seed tables read, so a sweep can use either
 * engine: per job {@code read}/{@code write} with {@code iops}, {@code bw} (KiB/s), {@code
 * total_ios}, {@code runtime} (ms) and {@code clat_ns} (mean, stddev, N, fio's percentile list),
 * and the generator's {@code usr_cpu}/{@code sys_cpu}. The process's CPU is shared out over the
 * jobs in equal parts, so that sums over jobs (as fio's readers do) come out right.
 */
public final class FioLikeJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** fio's default {@code percentile_list}. */
  private static final double[] PERCENTILES = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99
  };

  private FioLikeJson() {}

  /** The JSON document; {@code version} goes into fio's {@code "fio version"} field. */
  public static ObjectNode render(NativeBench.Outcome outcome, String version) {
    ObjectNode root = JSON.createObjectNode();
    root.put("fio version", version);
    root.put("timestamp", System.currentTimeMillis() / 1000);
    // Not fio's: lets a sweep line the server's CPU samples up with the measured window.
    ObjectNode window = root.putObject("window_epoch_ms");
    window.put("start", outcome.windowStartEpochMs());
    window.put("end", outcome.windowEndEpochMs());
    var jobs = root.putArray("jobs");
    int count = outcome.jobs().size();
    for (NativeBench.JobResult r : outcome.jobs()) {
      ObjectNode job = jobs.addObject();
      job.put("jobname", r.job().name());
      job.put("groupid", 0);
      job.put("error", 0);
      job.put("image", r.image());
      job.put("job_runtime", Math.round(outcome.seconds() * 1000));
      job.put("usr_cpu", outcome.usrCpu() / count);
      job.put("sys_cpu", outcome.sysCpu() / count);
      ObjectNode options = job.putObject("job options");
      r.job().options().forEach(options::put);
      direction(job.putObject("read"), r.reads(), r.job().blockSize(), outcome.seconds());
      direction(job.putObject("write"), r.writes(), r.job().blockSize(), outcome.seconds());
    }
    return root;
  }

  private static void direction(ObjectNode out, Histogram h, long blockSize, double seconds) {
    long ios = h.getTotalCount();
    long bytes = ios * blockSize;
    out.put("io_bytes", bytes);
    out.put("io_kbytes", bytes / 1024);
    out.put("bw_bytes", seconds > 0 ? Math.round(bytes / seconds) : 0);
    out.put("bw", seconds > 0 ? Math.round(bytes / 1024.0 / seconds) : 0);
    out.put("iops", seconds > 0 ? ios / seconds : 0);
    out.put("runtime", Math.round(seconds * 1000));
    out.put("total_ios", ios);
    out.put("short_ios", 0);
    out.put("drop_ios", 0);
    ObjectNode clat = out.putObject("clat_ns");
    clat.put("min", ios == 0 ? 0 : h.getMinValue());
    clat.put("max", ios == 0 ? 0 : h.getMaxValue());
    clat.put("mean", ios == 0 ? 0 : h.getMean());
    clat.put("stddev", ios == 0 ? 0 : h.getStdDeviation());
    clat.put("N", ios);
    if (ios > 0) {
      ObjectNode percentiles = clat.putObject("percentile");
      for (double p : PERCENTILES) {
        percentiles.put(String.format(Locale.ROOT, "%.6f", p), h.getValueAtPercentile(p));
      }
    }
  }

  /** The one-line summary, e.g. for the terminal after a run. */
  public static String summary(NativeBench.Outcome outcome) {
    StringBuilder sb = new StringBuilder("tidestore bench:");
    for (NativeBench.JobResult r : outcome.jobs()) {
      sb.append(' ')
          .append(r.job().name())
          .append(" (")
          .append(r.job().rw().fio())
          .append(" bs=")
          .append(ByteSize.format(r.job().blockSize()))
          .append(" iodepth=")
          .append(r.job().iodepth())
          .append(" numjobs=")
          .append(r.job().numjobs())
          .append(" on ")
          .append(r.image())
          .append("):");
      side(sb, "read", r.reads(), r.job().blockSize(), outcome.seconds());
      side(sb, "write", r.writes(), r.job().blockSize(), outcome.seconds());
      sb.append(';');
    }
    sb.append(
        String.format(
            Locale.ROOT,
            " %.1f s, generator CPU usr %.0f%% sys %.0f%%",
            outcome.seconds(),
            outcome.usrCpu(),
            outcome.sysCpu()));
    return sb.toString();
  }

  private static void side(
      StringBuilder sb, String name, Histogram h, long blockSize, double seconds) {
    long ios = h.getTotalCount();
    if (ios == 0) {
      return;
    }
    sb.append(
        String.format(
            Locale.ROOT,
            " %s %.0f IOPS %.1f MiB/s clat %.3f ms (p99 %.3f ms)",
            name,
            ios / seconds,
            ios * blockSize / 1048576.0 / seconds,
            h.getMean() / 1e6,
            h.getValueAtPercentile(99) / 1e6));
  }
}
