package io.tidestore.cli;

import io.tidestore.bench.sweep.CompareReport;
import io.tidestore.bench.sweep.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tidestore compare}: sweep runs side by side in one report. */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Put sweep runs side by side: overlaid response-latency curves per workload, peak points"
            + " with throughput per server core, and every run's table (compare.md + charts).")
final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "2..*", paramLabel = "RUN_DIR", description = "Run directories of sweep.")
  List<Path> runs;

  @Option(
      names = "--labels",
      split = ",",
      paramLabel = "A,B",
      description = "Labels, one per run. Default: each run's own label.")
  List<String> labels;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where compare.md and charts/ go. Default: bench-runs/compare-LABELS.")
  Path out;

  @Override
  public Integer call() throws IOException {
    if (labels != null && labels.size() != runs.size()) {
      throw new ParameterException(
          spec.commandLine(),
          "--labels has " + labels.size() + " labels for " + runs.size() + " runs");
    }
    List<CompareReport.Run> list = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      Path dir = runs.get(i);
      if (!Files.isRegularFile(dir.resolve("run.json"))) {
        throw new ParameterException(
            spec.commandLine(), dir + " is not a sweep run directory (no run.json)");
      }
      String label = labels != null ? labels.get(i) : RunReport.info(dir).label();
      list.add(new CompareReport.Run(label, dir.toAbsolutePath()));
    }
    Path dir =
        out != null
            ? out
            : Path.of(
                "bench-runs",
                "compare-"
                    + String.join("-vs-", list.stream().map(CompareReport.Run::label).toList()));
    Path report = CompareReport.write(dir.toAbsolutePath(), list);
    spec.commandLine().getOut().println("comparison: " + report);
    return 0;
  }
}
