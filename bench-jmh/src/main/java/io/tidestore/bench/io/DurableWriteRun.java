package io.tidestore.bench.io;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
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
 * one thread and {@code depth} writes in flight, and the FileChannel peer with {@code depth}
 * threads; prints writes/s and the io_uring/FileChannel ratios.
 *
 * <p>A shared disk drifts over minutes, so a ratio of two runs made minutes apart measures the
 * drift as much as the code. Hence rounds: {@code -Dtidestore.bench.rounds=N} repeats the pair N
 * times, alternating which side goes first (A B, B A, ...), and reports each round's ratio and
 * their median. JMH options (-f, -wi, -i, -w, -r) pass through; {@code
 * -Dtidestore.bench.depths=1,32} picks the depths; {@code -Dtidestore.bench.variants=Durable,...}
 * keeps only the io_uring variants whose method names contain one of the words.
 */
public final class DurableWriteRun {
  private static final String[][] URING_ROWS = {
    {"4k random", "RWF_DSYNC write", "uringRandom4kDurable"},
    {"4k random", "write linked to fdatasync", "uringRandom4kWriteThenSync"},
    {"4k random", "batch of depth writes + 1 fdatasync", "uringRandom4kBatchThenSync"},
    {"4k random", "group commit, one sync in flight", "uringRandom4kGroupCommit"},
    {"128k sequential", "RWF_DSYNC write", "uringSequential128kDurable"},
    {"128k sequential", "write linked to fdatasync", "uringSequential128kWriteThenSync"},
    {"128k sequential", "group commit, one sync in flight", "uringSequential128kGroupCommit"}
  };

  private DurableWriteRun() {}

  public static void main(String[] args) throws RunnerException, CommandLineOptionException {
    CommandLineOptions cli = new CommandLineOptions(args);
    int rounds = Integer.getInteger("tidestore.bench.rounds", 1);
    List<String> variants =
        Arrays.stream(System.getProperty("tidestore.bench.variants", "").split(",", -1))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .toList();
    String prefix = DurableWriteBenchmark.class.getName() + ".";
    // row label -> per-round {io_uring, peer}
    Map<String, List<double[]>> byRow = new LinkedHashMap<>();
    for (String d : System.getProperty("tidestore.bench.depths", "1,32").split(",", -1)) {
      int depth = Integer.parseInt(d.trim());
      List<String[]> rows = selected(variants);
      String uringInclude =
          prefix + "(" + rows.stream().map(r -> r[2]).collect(Collectors.joining("|")) + ")$";
      for (int round = 0; round < rounds; round++) {
        Collection<RunResult> uringResults;
        Collection<RunResult> channelResults;
        if (round % 2 == 0) {
          uringResults = runUring(cli, uringInclude, depth);
          channelResults = runChannel(cli, prefix, depth);
        } else {
          channelResults = runChannel(cli, prefix, depth);
          uringResults = runUring(cli, uringInclude, depth);
        }
        double c4 = writes(channelResults, "channelRandom4kDurable");
        double c128 = writes(channelResults, "channelSequential128kDurable");
        for (String[] row : rows) {
          double peer = row[0].startsWith("4k") ? c4 : c128;
          String label = "| " + row[0] + " | " + depth + " | " + row[1];
          byRow
              .computeIfAbsent(label, k -> new ArrayList<>())
              .add(new double[] {writes(uringResults, row[2]), peer});
        }
      }
    }
    System.out.println();
    System.out.println(
        "| workload | depth | io_uring variant | io_uring writes/s (median)"
            + " | FileChannel (depth threads, write+force) writes/s (median)"
            + " | ratio per round (A B, B A, ...) | median ratio |");
    System.out.println("|---|---|---|---|---|---|---|");
    byRow.forEach((label, results) -> System.out.println(label + summary(results)));
  }

  private static List<String[]> selected(List<String> variants) {
    List<String[]> rows = new ArrayList<>();
    for (String[] row : URING_ROWS) {
      if (variants.isEmpty() || variants.stream().anyMatch(row[2]::contains)) {
        rows.add(row);
      }
    }
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("tidestore.bench.variants matches no benchmark");
    }
    return rows;
  }

  private static Collection<RunResult> runUring(CommandLineOptions cli, String include, int depth)
      throws RunnerException {
    ChainedOptionsBuilder uring =
        new OptionsBuilder()
            .parent(cli)
            .include(include)
            .param("depth", String.valueOf(depth))
            .threads(1);
    return new Runner(uring.build()).run();
  }

  private static Collection<RunResult> runChannel(CommandLineOptions cli, String prefix, int depth)
      throws RunnerException {
    ChainedOptionsBuilder channel =
        new OptionsBuilder().parent(cli).include(prefix + "channel.*").threads(depth);
    return new Runner(channel.build()).run();
  }

  /** " | median uring | median peer | r1, r2, ... | median ratio |" for one row's rounds. */
  private static String summary(List<double[]> rounds) {
    double[] uring = rounds.stream().mapToDouble(r -> r[0]).toArray();
    double[] peer = rounds.stream().mapToDouble(r -> r[1]).toArray();
    double[] ratio = rounds.stream().mapToDouble(r -> r[0] / r[1]).toArray();
    String perRound =
        Arrays.stream(ratio)
            .mapToObj(r -> String.format(Locale.ROOT, "%.2fx", r))
            .collect(Collectors.joining(", "));
    return String.format(
        Locale.ROOT,
        " | %.0f | %.0f | %s | %.2fx |",
        median(uring),
        median(peer),
        perRound,
        median(ratio));
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
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
