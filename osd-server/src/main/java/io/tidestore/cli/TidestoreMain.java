package io.tidestore.cli;

import io.netty.util.ResourceLeakDetector;
import io.tidestore.osd.config.ConfFile;
import io.tidestore.osd.logging.LogSetup;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code tidestore}: the daemon and every CLI command, in one jar. */
@Command(
    name = "tidestore",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Tidestore: an object storage daemon for the JVM.",
    subcommands = {
      OsdCommand.class,
      MonCommand.class,
      PoolCommand.class,
      PgCommand.class,
      StatusCommand.class,
      ClusterCommand.class,
      MkfsCommand.class,
      FsckCommand.class,
      CacheSimCommand.class,
      SweepCommand.class,
      BenchCommand.class,
      ReproduceCommand.class,
      DemoCommand.class,
      CompareCommand.class,
      AdminCommand.class,
      ImageCommand.class,
      NbdGatewayCommand.class,
      ThrashCommand.class,
      TlsCommand.class,
      VersionCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TidestoreMain {

  private TidestoreMain() {}

  public static void main(String[] args) {
    LogSetup.install();
    disableLeakSampling();
    System.exit(run(args));
  }

  /**
   * Netty's default leak detection samples one buffer allocation in 128 and records its stack
   * trace: about 1.3% of the reactor's samples on 4k NBD reads, which allocate a reply buffer per
   * op. Only the process entry point turns it off, so tests (which call {@link #run}) keep it, and
   * {@code -Dio.netty.leakDetection.level=...} on the daemon's JVM still wins.
   */
  private static void disableLeakSampling() {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
  }

  /** Runs one command line and returns its exit code; the daemon returns when it has stopped. */
  public static int run(String... args) {
    CommandLine cli = newCommandLine();
    List<String> expanded;
    try {
      // A --conf file becomes `--key=value` arguments placed before the user's own, so flags
      // given on the command line override the file (overwritten options are allowed).
      expanded = ConfFile.expandArguments(cli, List.of(args));
    } catch (ConfFile.ConfException e) {
      cli.getErr().println("tidestore: " + e.getMessage());
      return CommandLine.ExitCode.USAGE;
    }
    return cli.execute(expanded.toArray(String[]::new));
  }

  static CommandLine newCommandLine() {
    CommandLine cli = new CommandLine(new TidestoreMain());
    cli.setOverwrittenOptionsAllowed(true);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          commandLine.getErr().println("tidestore " + commandLine.getCommandName() + ": " + ex);
          return CommandLine.ExitCode.SOFTWARE;
        });
    return cli;
  }
}
