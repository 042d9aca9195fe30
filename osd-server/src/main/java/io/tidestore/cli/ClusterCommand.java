package io.tidestore.cli;

import io.tidestore.cluster.local.ClusterLauncher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code tidestore cluster up|down}: a whole cluster of local processes (Ceph's vstart.sh). */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = "A cluster of local processes on loopback (Ceph's vstart.sh): up, down.",
    subcommands = {ClusterCommand.Up.class, ClusterCommand.Down.class})
final class ClusterCommand {

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description = {
        "Start monitors and OSDs, each its own process on loopback with free ports and small"
            + " defaults that fit 2 cores (2 shards of 256 MiB, 256 MiB cache, 1 reactor per OSD;"
            + " failure domain osd). Prints how to reach them and writes DIR/cluster.json;"
            + " starting it again on DIR reuses its data and ports."
      })
  static final class Up implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--dir",
        paramLabel = "DIR",
        required = true,
        description = "Where every daemon's data and log go.")
    Path dir;

    @Option(
        names = "--mons",
        paramLabel = "1|3",
        description = "Monitors. Default: ${DEFAULT-VALUE}.")
    int mons = 1;

    @Option(names = "--osds", paramLabel = "N", description = "OSDs. Default: ${DEFAULT-VALUE}.")
    int osds = 3;

    @Option(
        names = "--tls",
        description =
            "Run every daemon with --tls require --tls-verify-peer on certificates that tls init"
                + " makes in DIR/pki (client admin in DIR/pki/clients/admin, which status --dir"
                + " uses).")
    boolean tls;

    @Override
    public Integer call() throws InterruptedException {
      if (mons < 1 || mons > 7 || mons % 2 == 0) {
        throw new ParameterException(spec.commandLine(), "--mons must be 1, 3, 5 or 7");
      }
      if (osds < 0 || osds > 32) {
        throw new ParameterException(spec.commandLine(), "--osds must be 0-32");
      }
      try {
        new ClusterLauncher(dir, System.out).up(mons, osds, tls);
        return 0;
      } catch (IOException e) {
        spec.commandLine().getErr().println("tidestore cluster up: " + e.getMessage());
        return 1;
      }
    }
  }

  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = "Stop every daemon `cluster up --dir DIR` started (OSDs first); data stays.")
  static final class Down implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--dir",
        paramLabel = "DIR",
        required = true,
        description = "The cluster's directory.")
    Path dir;

    @Override
    public Integer call() throws InterruptedException {
      try {
        new ClusterLauncher(dir, System.out).down();
        return 0;
      } catch (IOException e) {
        spec.commandLine().getErr().println("tidestore cluster down: " + e.getMessage());
        return 1;
      }
    }
  }
}
