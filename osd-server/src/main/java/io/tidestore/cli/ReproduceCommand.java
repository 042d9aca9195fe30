package io.tidestore.cli;

import io.tidestore.bench.job.Workloads;
import io.tidestore.bench.orchestrate.Reproduction;
import io.tidestore.bench.orchestrate.ReproductionPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore reproduce}: a seed report from one command. Each {@code --run} gets a fresh
 * daemon with its own options on a fresh store; all get the same sweep; then they are compared.
 */
@Command(
    name = "reproduce",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Per --run: mkfs a temporary store, start a daemon (a separate process, from this jar) with"
          + " the run's options, create images, sweep, stop, delete the store. Then compare every"
          + " run, with --include'd run directories made elsewhere (e.g. a Ceph cluster's).",
      "Examples:",
      "  tidestore reproduce --run 'r1:--reactors 1' --run 'r2:--reactors 2'",
      "  tidestore reproduce --run 'lru:--cache-policy lru' --run '2q:--cache-policy 2q'"
          + " --workloads randread4k-zipf,randwrite4k-zipf"
    },
    sortOptions = false)
final class ReproduceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--run",
      required = true,
      paramLabel = "LABEL[:OPTIONS]",
      description =
          "A daemon to measure: its label, then any tidestore osd options (e.g."
              + " 'r2:--reactors 2 --cache-policy 2q'). Repeatable.")
  List<String> runs = new ArrayList<>();

  @Option(
      names = "--include",
      paramLabel = "LABEL=RUN_DIR",
      description = "A sweep run directory made elsewhere, to compare with. Repeatable.")
  List<String> includes = new ArrayList<>();

  @Option(
      names = "--engine",
      paramLabel = "ENGINE",
      description = "native (tidestore bench) or fio (over NBD). Default: ${DEFAULT-VALUE}.")
  SweepCommand.Engine engine = SweepCommand.Engine.NATIVE;

  @Option(
      names = "--workloads",
      split = ",",
      paramLabel = "NAME|FILE",
      description = "Default: ${DEFAULT-VALUE}.")
  List<String> workloads = new ArrayList<>(Workloads.SEED_CLASSIC);

  @Option(
      names = "--iodepths",
      split = ",",
      paramLabel = "N",
      description = "Default: ${DEFAULT-VALUE}.")
  List<Integer> iodepths = new ArrayList<>(List.of(1, 2, 4, 8, 16, 24, 32, 40, 52, 64));

  @Option(names = "--runtime", paramLabel = "SECONDS", description = "Default: ${DEFAULT-VALUE}.")
  double runtime = 5;

  @Option(names = "--ramp", paramLabel = "SECONDS", description = "Default: ${DEFAULT-VALUE}.")
  double ramp = 2;

  @Option(names = "--images", paramLabel = "N", description = "Default: ${DEFAULT-VALUE}.")
  int images = 1;

  @Option(names = "--jobs-per-image", paramLabel = "M", description = "Default: ${DEFAULT-VALUE}.")
  int jobsPerImage = 1;

  @Option(names = "--image-size", paramLabel = "SIZE", description = "Default: ${DEFAULT-VALUE}.")
  String imageSize = "1G";

  @Option(names = "--shards", paramLabel = "N", description = "Default: ${DEFAULT-VALUE}.")
  int shards = 4;

  @Option(
      names = "--shard-size",
      paramLabel = "SIZE",
      description = "mkfs writes every shard once. Default: ${DEFAULT-VALUE}.")
  String shardSize = "512m";

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description = "Where temporary stores go. Default: the system's temp directory.")
  Path workDir = Path.of(System.getProperty("java.io.tmpdir"));

  @Option(names = "--out", paramLabel = "DIR", description = "Default: bench-runs/reproduce-TIME.")
  Path out;

  @Override
  public Integer call() throws Exception {
    List<ReproductionPlan.Run> planned = new ArrayList<>();
    for (String r : runs) {
      int colon = r.indexOf(':');
      String label = (colon < 0 ? r : r.substring(0, colon)).strip();
      String options = colon < 0 ? "" : r.substring(colon + 1).strip();
      checkLabel(label);
      planned.add(
          new ReproductionPlan.Run(
              label, options.isEmpty() ? List.of() : Arrays.asList(options.split("\\s+"))));
    }
    List<ReproductionPlan.Run> included = new ArrayList<>();
    for (String i : includes) {
      int eq = i.indexOf('=');
      if (eq <= 0 || !Files.isRegularFile(Path.of(i.substring(eq + 1), "run.json"))) {
        throw new ParameterException(
            spec.commandLine(), "--include wants LABEL=RUN_DIR of a sweep, got " + i);
      }
      included.add(
          new ReproductionPlan.Run(
              i.substring(0, eq),
              List.of(Path.of(i.substring(eq + 1)).toAbsolutePath().toString())));
    }
    Path dir = out != null ? out : timestamped("reproduce");
    ReproductionPlan plan =
        new ReproductionPlan(
            planned,
            included,
            sweepArgs(engine, workloads, iodepths, runtime, ramp, jobsPerImage),
            engine == SweepCommand.Engine.NATIVE,
            images,
            imageSize,
            shards,
            shardSize,
            workDir,
            dir.toAbsolutePath());
    new Reproduction(plan, args -> inProcess(spec, args), spec.commandLine().getOut()).run();
    return 0;
  }

  private void checkLabel(String label) {
    if (!label.matches("[A-Za-z0-9_.-]{1,40}")) {
      throw new ParameterException(
          spec.commandLine(), "run label must be 1-40 of [A-Za-z0-9_.-], got '" + label + "'");
    }
  }

  /** {@code bench-runs/KIND-yyyyMMdd-HHmmss}, the default place of a run's results. */
  static Path timestamped(String kind) {
    return Path.of(
        "bench-runs",
        kind + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
  }

  /** The sweep options every run shares. */
  static List<String> sweepArgs(
      SweepCommand.Engine engine,
      List<String> workloads,
      List<Integer> iodepths,
      double runtime,
      double ramp,
      int jobsPerImage) {
    return List.of(
        "--engine",
        engine.name().toLowerCase(Locale.ROOT),
        "--workloads",
        String.join(",", workloads),
        "--iodepths",
        String.join(",", iodepths.stream().map(String::valueOf).toList()),
        "--runtime",
        Double.toString(runtime),
        "--ramp",
        Double.toString(ramp),
        "--jobs-per-image",
        Integer.toString(jobsPerImage));
  }

  /** Runs another tidestore command in this JVM, its output on ours. */
  static int inProcess(CommandSpec spec, List<String> args) {
    CommandLine cli = TidestoreMain.newCommandLine();
    cli.setOut(spec.commandLine().getOut());
    cli.setErr(spec.commandLine().getErr());
    return cli.execute(args.toArray(String[]::new));
  }
}
