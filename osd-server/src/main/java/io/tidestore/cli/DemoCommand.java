package io.tidestore.cli;

import io.tidestore.bench.job.Workloads;
import io.tidestore.bench.orchestrate.Reproduction;
import io.tidestore.bench.orchestrate.ReproductionPlan;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore demo}: the first command to run. A daemon on a temporary store (embedded
 * defaults), one image, a short sweep of the seeds' four workloads with the native engine, the
 * table and charts; everything torn down after.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Start a daemon on a temporary store (embedded defaults, 2 shards of 256 MiB), create an image,"
          + " sweep the four seed workloads over a few iodepths with tidestore bench (about 2"
          + " minutes), print the table, write the charts, stop the daemon and say where the"
          + " report is."
    },
    sortOptions = false)
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--iodepths",
      split = ",",
      paramLabel = "N",
      description = "Default: ${DEFAULT-VALUE}.")
  List<Integer> iodepths = new ArrayList<>(List.of(1, 4, 16));

  @Option(
      names = "--runtime",
      paramLabel = "SECONDS",
      description = "Measured seconds per point. Default: ${DEFAULT-VALUE}.")
  double runtime = 3;

  @Option(
      names = "--ramp",
      paramLabel = "SECONDS",
      description = "Warm-up per point. Default: ${DEFAULT-VALUE}.")
  double ramp = 1;

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description = "Where the temporary store goes. Default: the system's temp directory.")
  Path workDir = Path.of(System.getProperty("java.io.tmpdir"));

  @Option(names = "--out", paramLabel = "DIR", description = "Default: bench-runs/demo-TIME.")
  Path out;

  @Override
  public Integer call() throws Exception {
    Path dir = (out != null ? out : ReproduceCommand.timestamped("demo")).toAbsolutePath();
    ReproductionPlan plan =
        new ReproductionPlan(
            List.of(new ReproductionPlan.Run("demo", List.of())),
            List.of(),
            ReproduceCommand.sweepArgs(
                SweepCommand.Engine.NATIVE, Workloads.SEED_CLASSIC, iodepths, runtime, ramp, 1),
            true,
            1,
            "128M",
            2,
            "256m",
            workDir,
            dir);
    PrintWriter stdout = spec.commandLine().getOut();
    stdout.println(
        "tidestore demo: a daemon on a temporary store, "
            + Workloads.SEED_CLASSIC.size() * iodepths.size()
            + " sweep points of "
            + (runtime + ramp)
            + " s each; Ctrl-C stops and cleans up");
    Path run =
        new Reproduction(plan, args -> ReproduceCommand.inProcess(spec, args), stdout)
            .run()
            .getFirst();
    stdout.println();
    stdout.println(Files.readString(run.resolve("report.md"), StandardCharsets.UTF_8));
    stdout.println("report: " + run.resolve("report.md"));
    stdout.println("charts: " + run.resolve("charts"));
    stdout.flush();
    return 0;
  }
}
