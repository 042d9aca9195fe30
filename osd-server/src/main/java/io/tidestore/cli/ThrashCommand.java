package io.tidestore.cli;

import io.tidestore.cluster.thrash.Thrasher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore thrash --dir DIR --minutes N}: teuthology's thrasher against a local cluster
 * ({@code cluster up --dir DIR}): random OSDs killed with SIGKILL and restarted under a load that
 * verifies every read; exit 0 when nothing acknowledged was lost, stale or corrupt, 1 otherwise.
 */
@Command(
    name = "thrash",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Kill and restart random OSDs of a local cluster (cluster up) under a verifying load;"
            + " exit 1 on any lost, stale or corrupt read.")
final class ThrashCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--dir",
      required = true,
      paramLabel = "DIR",
      description = "The cluster's directory.")
  Path dir;

  @Option(
      names = "--minutes",
      paramLabel = "N",
      description = "How long to thrash (decimals allowed). Default: ${DEFAULT-VALUE}.")
  double minutes = 5;

  @Option(names = "--pool", paramLabel = "NAME", description = "Default: ${DEFAULT-VALUE}.")
  String pool = "rbd";

  @Option(
      names = "--objects",
      paramLabel = "N",
      description = "Objects the load writes and verifies. Default: ${DEFAULT-VALUE}.")
  int objects = 64;

  @Option(names = "--seed", paramLabel = "N", description = "Random seed (default: the time).")
  Long seed;

  @Override
  public Integer call() throws Exception {
    if (minutes <= 0 || objects < 1) {
      spec.commandLine()
          .getErr()
          .println("tidestore thrash: --minutes and --objects must be positive");
      return 2;
    }
    long s = seed != null ? seed : System.nanoTime();
    spec.commandLine()
        .getOut()
        .println("thrash: seed " + s + " (--seed " + s + " repeats its choices)");
    List<String> violations =
        new Thrasher(
                dir, System.out, s, Duration.ofMillis((long) (minutes * 60_000)), pool, objects)
            .run();
    return violations.isEmpty() ? 0 : 1;
  }
}
