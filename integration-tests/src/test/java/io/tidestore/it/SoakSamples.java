package io.tidestore.it;

import io.tidestore.bench.report.Charts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * What the soak samples at a fixed period: the load's ops, failures and latency percentiles over
 * the period, and the daemon's resident memory, threads and open files (from /proc). Written as a
 * CSV and two charts (latency, resources) over time.
 */
final class SoakSamples {
  /** One period's sample; {@code seconds} since the load started. */
  record Sample(
      double seconds,
      long ops,
      long failures,
      double p50Ms,
      double p99Ms,
      double maxMs,
      double rssMib,
      int threads,
      int fds) {}

  private final long pid;
  private final List<Sample> samples = new ArrayList<>();
  private final long startNanos = System.nanoTime();
  private long lastOps;
  private long lastFailures;
  private java.util.Map<String, Integer> threadNames;

  SoakSamples(long pid) {
    this.pid = pid;
  }

  /** Takes one sample: {@code latencies} is the period's interval histogram (ns). */
  Sample take(long ops, long failures, Histogram latencies) throws IOException {
    double rssMib = 0;
    int threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rssMib = Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.replaceAll("\\D", ""));
      }
    }
    int fds;
    try (Stream<Path> open = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      fds = (int) open.count();
    }
    Sample s =
        new Sample(
            (System.nanoTime() - startNanos) / 1e9,
            ops - lastOps,
            failures - lastFailures,
            latencies.getValueAtPercentile(50) / 1e6,
            latencies.getValueAtPercentile(99) / 1e6,
            latencies.getMaxValue() / 1e6,
            rssMib,
            threads,
            fds);
    lastOps = ops;
    lastFailures = failures;
    samples.add(s);
    return s;
  }

  List<Sample> samples() {
    return samples;
  }

  /** The samples taken from {@code warmupSeconds} on. */
  List<Sample> after(double warmupSeconds) {
    return samples.stream().filter(s -> s.seconds() >= warmupSeconds).toList();
  }

  /**
   * Resident memory growth per 10 minutes over {@code steady}: the slope of a least-squares line,
   * so that one sample's noise (a GC, a page freed late) does not decide it.
   */
  static double rssGrowthMibPer10Min(List<Sample> steady) {
    int n = steady.size();
    double mx = steady.stream().mapToDouble(Sample::seconds).average().orElse(0);
    double my = steady.stream().mapToDouble(Sample::rssMib).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    for (Sample s : steady) {
      sxy += (s.seconds() - mx) * (s.rssMib() - my);
      sxx += (s.seconds() - mx) * (s.seconds() - mx);
    }
    return n < 2 || sxx == 0 ? 0 : sxy / sxx * 600;
  }

  /**
   * Whether {@code count}'s baseline does not grow over {@code steady}: its lowest value in the
   * last third of the samples is at most its lowest in the first third. A leak raises the floor;
   * io_uring's kernel workers ({@code iou-wrk-N}: a ring starts one when a request must block and
   * it ends when idle) only raise single samples, and {@link #threadChanges} names them.
   */
  static boolean flat(List<Sample> steady, java.util.function.ToIntFunction<Sample> count) {
    int third = steady.size() / 3;
    if (third == 0) {
      return true;
    }
    int first = steady.subList(0, third).stream().mapToInt(count).min().orElse(0);
    int last =
        steady.subList(steady.size() - third, steady.size()).stream()
            .mapToInt(count)
            .min()
            .orElse(0);
    return last <= first;
  }

  /**
   * The daemon's threads by name ({@code /proc/PID/task/N/comm}) that started or ended since the
   * last call, as "+name" and "-name"; empty when none did.
   */
  List<String> threadChanges() throws IOException {
    java.util.Map<String, Integer> now = new java.util.TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          now.merge(Files.readString(task.resolve("comm")).strip(), 1, Integer::sum);
        } catch (IOException e) {
          // the thread ended while listed
        }
      }
    }
    List<String> changes = new ArrayList<>();
    if (threadNames != null) {
      for (var e : now.entrySet()) {
        for (int i = threadNames.getOrDefault(e.getKey(), 0); i < e.getValue(); i++) {
          changes.add("+" + e.getKey());
        }
      }
      for (var e : threadNames.entrySet()) {
        for (int i = now.getOrDefault(e.getKey(), 0); i < e.getValue(); i++) {
          changes.add("-" + e.getKey());
        }
      }
    }
    threadNames = now;
    return changes;
  }

  /** soak.csv, soak-latency.png/svg and soak-resources.png/svg in {@code dir}. */
  void write(Path dir, String title) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv =
        new StringBuilder("seconds,ops,failures,p50_ms,p99_ms,max_ms,rss_mib,threads,fds\n");
    for (Sample s : samples) {
      csv.append(
          String.format(
              Locale.ROOT,
              "%.1f,%d,%d,%.3f,%.3f,%.3f,%.1f,%d,%d%n",
              s.seconds(),
              s.ops(),
              s.failures(),
              s.p50Ms(),
              s.p99Ms(),
              s.maxMs(),
              s.rssMib(),
              s.threads(),
              s.fds()));
    }
    Files.writeString(dir.resolve("soak.csv"), csv);
    double[] minutes = samples.stream().mapToDouble(s -> s.seconds() / 60).toArray();
    XYChart latency = chart(title + ": latency per sample period", "ms");
    latency.addSeries("p99", minutes, samples.stream().mapToDouble(Sample::p99Ms).toArray());
    latency.addSeries("p50", minutes, samples.stream().mapToDouble(Sample::p50Ms).toArray());
    Charts.write(latency, dir.resolve("soak-latency"));
    XYChart resources = chart(title + ": the daemon's resources", "MiB / count");
    resources.addSeries("RSS MiB", minutes, samples.stream().mapToDouble(Sample::rssMib).toArray());
    resources.addSeries(
        "threads", minutes, samples.stream().mapToDouble(Sample::threads).toArray());
    resources.addSeries("open files", minutes, samples.stream().mapToDouble(Sample::fds).toArray());
    Charts.write(resources, dir.resolve("soak-resources"));
  }

  private static XYChart chart(String title, String yLabel) {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(450)
            .title(title)
            .xAxisTitle("minutes")
            .yAxisTitle(yLabel)
            .build();
    chart.getStyler().setMarkerSize(3);
    return chart;
  }
}
