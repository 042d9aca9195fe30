package io.tidestore.cli;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.job.Workloads;
import io.tidestore.bench.sweep.FioRunner;
import io.tidestore.bench.sweep.FioTarget;
import io.tidestore.bench.sweep.LoadEngine;
import io.tidestore.bench.sweep.NativeEngine;
import io.tidestore.bench.sweep.ProcAffinity;
import io.tidestore.bench.sweep.SweepPlan;
import io.tidestore.bench.sweep.SweepRunner;
import io.tidestore.osd.BuildInfo;
import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore sweep}: the seed reports' iodepth sweep, run with the real fio binary against
 * any fio target, with the server's CPU per thread and RSS sampled from /proc.
 */
@Command(
    name = "sweep",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Run workloads over a range of iodepths with fio, sample the server's CPU per thread and"
          + " RSS, and write a run directory: JSON per point, report.md with the seed reports'"
          + " columns, and charts (PNG and SVG).",
      "Examples:",
      "  tidestore sweep --server-pid $(pgrep -f 'tidestore.jar osd')",
      "  tidestore sweep --fio-target ioengine=rbd,pool=rbd,rbdname=fio_test_{image}"
          + " --server-pid $(pgrep ceph-osd) --label classic"
    },
    sortOptions = false)
final class SweepCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--workloads",
      split = ",",
      paramLabel = "NAME|FILE",
      description = "Workloads: names from conf/workloads or job files. Default: ${DEFAULT-VALUE}.")
  List<String> workloads = new ArrayList<>(Workloads.SEED_CLASSIC);

  @Option(
      names = "--iodepths",
      split = ",",
      paramLabel = "N",
      description = "Iodepths of the sweep. Default: ${DEFAULT-VALUE} (the seeds').")
  List<Integer> iodepths = new ArrayList<>(List.of(1, 2, 4, 8, 16, 24, 32, 40, 52, 64));

  @Option(
      names = "--engine",
      paramLabel = "ENGINE",
      description =
          "Load generator: fio (the real binary, its JSON parsed) or native (tidestore bench over"
              + " the native client, a child JVM per point). Default: ${DEFAULT-VALUE}.")
  Engine engine = Engine.FIO;

  @Option(
      names = "--osd",
      paramLabel = "HOST:PORT",
      description = "The OSD's object protocol address (native engine). Default: ${DEFAULT-VALUE}.")
  String osd = "127.0.0.1:6800";

  @Mixin ClientTlsOptions tls = new ClientTlsOptions();

  @Option(
      names = "--fio-target",
      paramLabel = "OPTS",
      description =
          "fio options naming the target, {image} = image index. Default: the local daemon's NBD"
              + " export, ioengine=nbd,uri=nbd://127.0.0.1:10809/bench{image} (fio), or"
              + " ioengine=tidestore,filename=bench{image} (native).")
  String fioTarget;

  @Option(names = "--fio", paramLabel = "PATH", description = "fio binary. Default: fio.")
  String fioBinary = "fio";

  @Option(
      names = "--runtime",
      paramLabel = "SECONDS",
      description = "Measured seconds per point. Default: the job file's runtime.")
  Double runtime;

  @Option(
      names = "--ramp",
      paramLabel = "SECONDS",
      description = "Warm-up seconds per point, excluded. Default: the job file's ramp_time.")
  Double ramp;

  @Option(names = "--images", paramLabel = "N", description = "Images. Default: 1.")
  int images = 1;

  @Option(
      names = "--jobs-per-image",
      paramLabel = "M",
      description = "fio jobs per image (the seeds ran 32 images x 4). Default: 1.")
  int jobsPerImage = 1;

  @Option(
      names = "--server-pid",
      paramLabel = "PID",
      description = "Server process whose CPU per thread and RSS are sampled.")
  Long serverPid;

  @Option(
      names = "--server-metrics",
      paramLabel = "URL",
      description =
          "The server's Prometheus endpoint (e.g. http://127.0.0.1:9283/metrics), scraped with"
              + " each CPU sample for tidestore_reactor_utilization: the CPU-per-thread chart then"
              + " shows each reactor's busy percent beside its CPU. Needs --server-pid.")
  URI serverMetrics;

  @Option(
      names = "--load-cpus",
      paramLabel = "CPUS",
      description =
          "Pin fio to these CPUs (taskset list). Default: the CPUs not used by the server's"
              + " pinned reactor threads, if any are left.")
  String loadCpus;

  @Option(
      names = "--no-prefill",
      description = "Skip the sequential prefill of the images before the first read workload.")
  boolean noPrefill;

  @Option(
      names = "--hide-latency-ms",
      paramLabel = "MS",
      description = "Leave out points with a mean latency above this. Default: ${DEFAULT-VALUE}.")
  double hideLatencyMs = 1000;

  @Option(
      names = "--stop-latency-ms",
      paramLabel = "MS",
      description =
          "Stop a workload's sweep after a point with a mean latency above this."
              + " Default: ${DEFAULT-VALUE}.")
  double stopLatencyMs = 1000;

  @Option(names = "--label", paramLabel = "NAME", description = "Run name. Default: tidestore.")
  String label = "tidestore";

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Run directory. Default: bench-runs/sweep-LABEL-TIME.")
  Path out;

  /** Load generators. */
  enum Engine {
    FIO,
    NATIVE
  }

  @Override
  public Integer call() throws Exception {
    validate();
    List<FioJob> jobs = new ArrayList<>();
    for (String w : workloads) {
      try {
        jobs.add(Workloads.load(w));
      } catch (IOException | IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e, null, w);
      }
    }
    FioTarget target;
    try {
      if (fioTarget != null) {
        target = FioTarget.parse(fioTarget);
      } else if (engine == Engine.NATIVE) {
        target = FioTarget.parse("ioengine=tidestore,filename=bench{image}");
      } else {
        target = FioTarget.nbd("127.0.0.1", OsdDefaults.NBD_PORT, "bench");
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    double runtimeSeconds = runtime != null ? runtime : jobs.getFirst().runtimeSeconds();
    double rampSeconds = ramp != null ? ramp : jobs.getFirst().rampSeconds();
    if (runtimeSeconds <= 0) {
      throw new ParameterException(
          spec.commandLine(), "no runtime: give --runtime or use job files with runtime=");
    }
    BitSet cpus = new BitSet();
    String pinning = placeLoad(cpus, engine == Engine.NATIVE ? "tidestore bench" : "fio");
    Path dir =
        out != null
            ? out
            : Path.of(
                "bench-runs",
                "sweep-"
                    + label
                    + "-"
                    + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    SweepPlan plan =
        new SweepPlan(
            label,
            jobs,
            iodepths,
            runtimeSeconds,
            rampSeconds,
            images,
            jobsPerImage,
            target,
            !noPrefill,
            hideLatencyMs,
            stopLatencyMs,
            cpus,
            pinning,
            serverPid == null ? OptionalLong.empty() : OptionalLong.of(serverPid),
            Optional.ofNullable(serverMetrics),
            dir.toAbsolutePath());
    LoadEngine load =
        engine == Engine.NATIVE
            ? new NativeEngine(osd, BuildInfo.version(), tlsDirectory())
            : new FioRunner(fioBinary);
    String description;
    try {
      description = load.describe();
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    new SweepRunner(plan, load, spec.commandLine().getOut()).run(description, host());
    return 0;
  }

  /** The native engine's certificates, absolute: its child runs from the same directory. */
  private Path tlsDirectory() {
    Path dir = tls.directory();
    return dir == null ? null : dir.toAbsolutePath();
  }

  private void validate() {
    if (iodepths.isEmpty() || iodepths.stream().anyMatch(d -> d < 1)) {
      throw new ParameterException(spec.commandLine(), "--iodepths must be positive numbers");
    }
    if (images < 1 || jobsPerImage < 1) {
      throw new ParameterException(
          spec.commandLine(), "--images and --jobs-per-image must be at least 1");
    }
    if ((runtime != null && runtime <= 0) || (ramp != null && ramp < 0)) {
      throw new ParameterException(spec.commandLine(), "--runtime must be > 0 and --ramp >= 0");
    }
    if (serverPid != null && !Files.isDirectory(Path.of("/proc", serverPid.toString()))) {
      throw new ParameterException(
          spec.commandLine(), "--server-pid " + serverPid + ": no such process");
    }
  }

  /**
   * Chooses the load generator's CPUs into {@code cpus}; returns the sentence the report prints.
   */
  private String placeLoad(BitSet cpus, String generator) throws IOException {
    BitSet allowed = ProcAffinity.allowed(Path.of("/proc/self"));
    if (loadCpus != null) {
      BitSet asked;
      try {
        asked = CpuList.parse(loadCpus);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--load-cpus: " + e.getMessage());
      }
      cpus.or(asked);
      return generator + " pinned to CPUs " + CpuList.format(asked) + " (--load-cpus, taskset)";
    }
    if (serverPid == null) {
      return generator + " not pinned (no --server-pid to keep it away from)";
    }
    BitSet reactors = ProcAffinity.pinnedThreads(Path.of("/proc", serverPid.toString()), "reactor");
    if (reactors.isEmpty() || reactors.equals(allowed)) {
      return generator
          + " not pinned: the server's threads "
          + (reactors.isEmpty() ? "are not pinned" : "are pinned to every CPU")
          + ", so the load generator competes with them for CPU";
    }
    BitSet free = (BitSet) allowed.clone();
    free.andNot(reactors);
    if (free.isEmpty()) {
      return generator + " not pinned: no CPU is free of the server's reactors";
    }
    cpus.or(free);
    return generator
        + " pinned to CPUs "
        + CpuList.format(free)
        + ", away from the server's reactors on CPUs "
        + CpuList.format(reactors)
        + " (taskset)";
  }

  private static String host() throws IOException {
    String model = "";
    for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.US_ASCII)) {
      if (line.startsWith("model name")) {
        model = line.substring(line.indexOf(':') + 1).strip();
        break;
      }
    }
    return Runtime.getRuntime().availableProcessors()
        + " CPUs ("
        + model
        + "), Linux "
        + System.getProperty("os.version");
  }
}
