package io.tidestore.bench.sweep;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.result.FioJson;
import io.tidestore.bench.result.PointMetrics;
import io.tidestore.bench.result.ReactorUtilizationScrape;
import io.tidestore.bench.result.ThreadCpuSampler;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link SweepPlan} with a {@link LoadEngine} (real fio or tidestore bench): prefill, then
 * each workload at each iodepth while the server's threads are sampled once a second, then the run
 * directory's report and charts.
 */
public final class SweepRunner {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final SweepPlan plan;
  private final LoadEngine fio;
  private final PrintWriter progress;
  private final long sweepStartNanos = System.nanoTime();

  public SweepRunner(SweepPlan plan, LoadEngine fio, PrintWriter progress) {
    this.plan = plan;
    this.fio = fio;
    this.progress = progress;
  }

  /** Runs every point and writes the run directory; returns the points that ran. */
  public List<PointRecord> run(String fioVersion, String host)
      throws IOException, InterruptedException {
    Path points = Files.createDirectories(plan.outDir().resolve("points"));
    Path jobs = Files.createDirectories(plan.outDir().resolve("jobs"));
    write(
        plan.outDir().resolve("run.json"),
        new RunInfo(
            plan.label(),
            Instant.now().toString(),
            plan.workloads().stream().map(FioJob::name).toList(),
            plan.iodepths(),
            plan.runtimeSeconds(),
            plan.rampSeconds(),
            plan.images(),
            plan.jobsPerImage(),
            plan.target().toString(),
            plan.pinningNote(),
            plan.serverPid().orElse(0),
            fioVersion,
            host,
            plan.hideLatencyMs()));
    progress.println(
        "sweep '" + plan.label() + "': " + plan.points() + " points -> " + plan.outDir());
    progress.println("load generator: " + plan.pinningNote());
    progress.flush();

    List<PointRecord> records = new ArrayList<>();
    boolean prefilled = !plan.prefill();
    int done = 0;
    for (FioJob workload : plan.workloads()) {
      if (!prefilled && workload.rw().reads()) {
        prefill(jobs);
        prefilled = true;
      }
      for (int iodepth : plan.iodepths()) {
        done++;
        String name = workload.name() + "-qd" + iodepth;
        Path jobFile = jobs.resolve(name + ".fio");
        Files.writeString(
            jobFile,
            FioRunner.pointJobFile(workload, iodepth, plan, Map.of()),
            StandardCharsets.UTF_8);
        Path fioJson = points.resolve(name + ".fio.json");
        List<ThreadCpuSampler.Sample> samples = new ArrayList<>();
        ThreadCpuSampler.Summary server =
            sampleWhile(() -> fio.run(jobFile, fioJson, plan.loadCpus()), fioJson, samples);
        PointMetrics metrics = FioJson.read(fioJson);
        PointRecord record =
            new PointRecord(
                workload.name(),
                workload.rw().fio(),
                workload.blockSize(),
                iodepth,
                metrics,
                server == null ? Double.NaN : server.cpuPercent(),
                server == null ? Double.NaN : server.rssMiB(),
                server == null ? Map.of() : server.cpuByThread(),
                samples,
                server == null || metrics.iops() <= 0
                    ? Double.NaN
                    : server.contextSwitchesPerSecond() / metrics.iops());
        write(points.resolve(name + ".json"), record);
        records.add(record);
        progress.println(progressLine(done, workload, iodepth, record));
        progress.flush();
        if (metrics.clatMeanMs() > plan.stopLatencyMs()) {
          progress.printf(
              Locale.ROOT,
              "  %s: mean latency %.1f ms above the early-stop threshold %.0f ms; skipping deeper"
                  + " iodepths%n",
              workload.name(),
              metrics.clatMeanMs(),
              plan.stopLatencyMs());
          done += plan.iodepths().size() - plan.iodepths().indexOf(iodepth) - 1;
          break;
        }
      }
    }
    RunReport.write(plan.outDir(), records);
    progress.println("report: " + plan.outDir().resolve("report.md"));
    progress.flush();
    return records;
  }

  private void prefill(Path jobs) throws IOException, InterruptedException {
    Path jobFile = jobs.resolve("prefill.fio");
    Files.writeString(jobFile, FioRunner.prefillJobFile(plan), StandardCharsets.UTF_8);
    progress.println("prefill: writing " + plan.images() + " image(s) sequentially, 64k blocks");
    progress.flush();
    fio.run(jobFile, plan.outDir().resolve("points").resolve("prefill.fio.json"), plan.loadCpus());
  }

  /** A piece of work that may fail with I/O or interruption. */
  interface Work {
    void run() throws IOException, InterruptedException;
  }

  /**
   * Runs {@code work} while sampling the server every second; null summary if unobserved. The
   * summary covers the window the engine measured when its JSON says (tidestore bench), else the
   * time after the ramp.
   */
  private ThreadCpuSampler.Summary sampleWhile(
      Work work, Path engineJson, List<ThreadCpuSampler.Sample> out)
      throws IOException, InterruptedException {
    if (plan.serverPid().isEmpty()) {
      work.run();
      return null;
    }
    ThreadCpuSampler sampler = ThreadCpuSampler.forPid(plan.serverPid().getAsLong());
    ReactorUtilizationScrape scrape =
        plan.serverMetrics().map(ReactorUtilizationScrape::new).orElse(null);
    Map<Double, Map<String, Double>> utilizationAt = new HashMap<>();
    long start = System.nanoTime();
    long startEpochMs = System.currentTimeMillis();
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "server-sampler"));
    Object lock = new Object();
    try {
      timer.scheduleAtFixedRate(
          () -> {
            synchronized (lock) {
              double seconds = (System.nanoTime() - start) / 1e9;
              try {
                sampler.sample(seconds);
                if (scrape != null) {
                  utilizationAt.put(seconds, scrape.scrape());
                }
              } catch (IOException | RuntimeException e) {
                // The server went away or /proc raced; the point's fio result still counts.
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          },
          0,
          1,
          TimeUnit.SECONDS);
      work.run();
    } finally {
      timer.shutdownNow();
      timer.awaitTermination(5, TimeUnit.SECONDS);
    }
    double offset = (start - sweepStartNanos) / 1e9;
    synchronized (lock) {
      for (ThreadCpuSampler.Sample s : sampler.samples()) {
        out.add(
            new ThreadCpuSampler.Sample(
                s.seconds() + offset,
                s.cpuByThread(),
                s.rssMiB(),
                utilizationAt.getOrDefault(s.seconds(), Map.of()),
                s.contextSwitchesPerSecond()));
      }
      var window = FioJson.measuredWindowEpochMs(engineJson);
      return window.isPresent()
          ? sampler.summarize(
              (window.get()[0] - startEpochMs) / 1000.0, (window.get()[1] - startEpochMs) / 1000.0)
          : sampler.summarize(plan.rampSeconds());
    }
  }

  private String progressLine(int done, FioJob workload, int iodepth, PointRecord r) {
    PointMetrics m = r.metrics();
    boolean bandwidth = workload.blockSize() >= 64 * 1024;
    return String.format(
        Locale.ROOT,
        "[%d/%d] %s iodepth=%d: %s, clat %.3f ms (p99 %.3f ms)%s",
        done,
        plan.points(),
        workload.name(),
        iodepth,
        bandwidth
            ? String.format(Locale.ROOT, "%.1f MiB/s", m.bandwidthMiBs())
            : String.format(Locale.ROOT, "%.0f IOPS", m.iops()),
        m.clatMeanMs(),
        m.clatP99Ms(),
        Double.isNaN(r.serverCpuPercent())
            ? ""
            : String.format(
                Locale.ROOT,
                ", server CPU %.0f%%, RSS %.0f MiB",
                r.serverCpuPercent(),
                r.serverRssMiB()));
  }

  static void write(Path file, Object value) throws IOException {
    JSON.writeValue(file.toFile(), value);
  }
}
