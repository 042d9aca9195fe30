package io.tidestore.bench.orchestrate;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs a {@link ReproductionPlan}: per run mkfs a temporary data directory, start the daemon as a
 * child process, create the images, sweep (in this process, observing the daemon's pid), stop the
 * daemon and delete the data; then compare. The daemon and the data are torn down on every exit,
 * Ctrl-C included (a shutdown hook does it when the JVM is interrupted).
 */
public final class Reproduction {
  /** Runs a Tidestore command in this process (sweep, compare) and returns its exit code. */
  @FunctionalInterface
  public interface Commands {
    int execute(List<String> args);
  }

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  private final ReproductionPlan plan;
  private final Commands commands;
  private final PrintWriter out;

  public Reproduction(ReproductionPlan plan, Commands commands, PrintWriter out) {
    this.plan = plan;
    this.commands = commands;
    this.out = out;
  }

  /** Runs everything; returns the run directories, ours then the included ones. */
  public List<Path> run() throws IOException, InterruptedException {
    Files.createDirectories(plan.outDir());
    List<Path> dirs = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (ReproductionPlan.Run run : plan.runs()) {
      dirs.add(runOne(run));
      labels.add(run.label());
    }
    for (ReproductionPlan.Run run : plan.included()) {
      dirs.add(Path.of(run.daemonOptions().getFirst()));
      labels.add(run.label());
    }
    if (dirs.size() > 1) {
      List<String> compare = new ArrayList<>(List.of("compare"));
      dirs.forEach(d -> compare.add(d.toString()));
      compare.addAll(
          List.of(
              "--labels",
              String.join(",", labels),
              "--out",
              plan.outDir().resolve("compare").toString()));
      check(commands.execute(compare), "compare");
      say("comparison: " + plan.outDir().resolve("compare").resolve("compare.md"));
    }
    return dirs;
  }

  private Path runOne(ReproductionPlan.Run run) throws IOException, InterruptedException {
    Path runDir = plan.outDir().resolve(run.label());
    Files.createDirectories(runDir);
    Path data = Files.createTempDirectory(plan.workDir(), "tidestore-" + run.label() + "-");
    Path log = runDir.resolve("daemon.log");
    DaemonProcess[] daemon = new DaemonProcess[1];
    Runnable teardown =
        () -> {
          try {
            if (daemon[0] != null) {
              daemon[0].close();
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          deleteTree(data);
        };
    Thread hook = new Thread(teardown, "reproduction-teardown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      say(
          "["
              + run.label()
              + "] mkfs "
              + plan.shards()
              + " x "
              + plan.shardSize()
              + " in "
              + data
              + " (preallocates by writing)");
      ChildCommand.run(
          List.of(
              "mkfs",
              "--data",
              data.resolve("osd").toString(),
              "--shards",
              Integer.toString(plan.shards()),
              "--shard-size",
              plan.shardSize()),
          runDir.resolve("mkfs.log"));
      say(
          "["
              + run.label()
              + "] starting the daemon"
              + (run.daemonOptions().isEmpty()
                  ? ""
                  : " with " + String.join(" ", run.daemonOptions())));
      daemon[0] = DaemonProcess.start(data.resolve("osd"), run.daemonOptions(), log, READY_TIMEOUT);
      String osd = "127.0.0.1:" + daemon[0].objectPort();
      say(
          "["
              + run.label()
              + "] daemon pid "
              + daemon[0].pid()
              + " on "
              + osd
              + " (nbd "
              + daemon[0].nbdPort()
              + "); creating "
              + plan.images()
              + " image(s) of "
              + plan.imageSize());
      for (int i = 0; i < plan.images(); i++) {
        ChildCommand.run(
            List.of("image", "--osd", osd, "create", "bench" + i, "--size", plan.imageSize()),
            runDir.resolve("images.log"));
      }
      List<String> sweep = new ArrayList<>(List.of("sweep"));
      sweep.addAll(plan.sweepArgs());
      if (plan.nativeEngine()) {
        sweep.addAll(List.of("--osd", osd));
      } else {
        sweep.addAll(
            List.of(
                "--fio-target",
                "ioengine=nbd,uri=nbd://127.0.0.1:" + daemon[0].nbdPort() + "/bench{image}"));
      }
      sweep.addAll(
          List.of(
              "--images",
              Integer.toString(plan.images()),
              "--server-pid",
              Long.toString(daemon[0].pid()),
              "--server-metrics",
              "http://127.0.0.1:" + daemon[0].metricsPort() + "/metrics",
              "--label",
              run.label(),
              "--out",
              runDir.toString()));
      check(commands.execute(sweep), "sweep " + run.label());
      int code = daemon[0].stop();
      say(
          "["
              + run.label()
              + "] daemon stopped (exit "
              + code
              + "); report: "
              + runDir.resolve("report.md"));
      return runDir;
    } finally {
      teardown.run();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // Shutting down already: the hook has run or will, and it is idempotent.
      }
    }
  }

  private static void check(int code, String what) throws IOException {
    if (code != 0) {
      throw new IOException(what + " failed (exit " + code + ")");
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }

  /** Deletes a directory tree; gone already is fine. */
  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
