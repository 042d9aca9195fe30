package io.tidestore.bench.io;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link DurableWriteBenchmark} as one session: for each depth, the io_uring benchmarks with
 * one thread and {@code depth} writes in flight, then the FileChannel peer with {@code depth}
 * threads; prints writes/s and the io_uring/FileChannel ratios. JMH options (-f, -wi, -i, -w, -r)
 * pass through; {@code -Dtidestore.bench.depths=1,32} picks the depths.
 */
public final class DurableWriteRun {
  private DurableWriteRun() {}

  public static void main(String[] args) throws RunnerException, CommandLineOptionException {
    CommandLineOptions cli = new CommandLineOptions(args);
    String prefix = DurableWriteBenchmark.class.getName() + ".";
    List<String> rows = new ArrayList<>();
    for (String d : System.getProperty("tidestore.bench.depths", "1,32").split(",", -1)) {
      int depth = Integer.parseInt(d.trim());
      ChainedOptionsBuilder uring =
          new OptionsBuilder()
              .parent(cli)
              .include(prefix + "uring.*")
              .param("depth", String.valueOf(depth))
              .threads(1);
      Collection<RunResult> uringResults = new Runner(uring.build()).run();
      ChainedOptionsBuilder channel =
          new OptionsBuilder().parent(cli).include(prefix + "channel.*").threads(depth);
      Collection<RunResult> channelResults = new Runner(channel.build()).run();
      double c4 = writes(channelResults, "channelRandom4kDurable");
      double c128 = writes(channelResults, "channelSequential128kDurable");
      String[][] uringRows = {
        {"4k random", "RWF_DSYNC write", "uringRandom4kDurable"},
        {"4k random", "write linked to fdatasync", "uringRandom4kWriteThenSync"},
        {"4k random", "batch of depth writes + 1 fdatasync", "uringRandom4kBatchThenSync"},
        {"4k random", "group commit, overlapping batches", "uringRandom4kGroupCommit"},
        {"128k sequential", "RWF_DSYNC write", "uringSequential128kDurable"},
        {"128k sequential", "write linked to fdatasync", "uringSequential128kWriteThenSync"},
        {"128k sequential", "group commit, overlapping batches", "uringSequential128kGroupCommit"}
      };
      for (String[] row : uringRows) {
        double score = writes(uringResults, row[2]);
        double peer = row[0].startsWith("4k") ? c4 : c128;
        rows.add(
            String.format(
                Locale.ROOT,
                "| %s | %d | %s | %.0f | %.0f | %.2fx |",
                row[0],
                depth,
                row[1],
                score,
                peer,
                score / peer));
      }
    }
    System.out.println();
    System.out.println(
        "| workload | depth | io_uring variant | io_uring writes/s"
            + " | FileChannel (depth threads, write+force) writes/s | ratio |");
    System.out.println("|---|---|---|---|---|---|");
    rows.forEach(System.out::println);
  }

  private static double writes(Collection<RunResult> results, String method) {
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith("." + method)) {
        Result<?> writes = r.getSecondaryResults().get("writes");
        return writes == null ? Double.NaN : writes.getScore();
      }
    }
    return Double.NaN;
  }
}
