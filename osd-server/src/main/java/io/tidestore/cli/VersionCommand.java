package io.tidestore.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tidestore version}: prints the version and the JDK. */
@Command(
    name = "version",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Print Tidestore's version and the JDK it runs on.")
final class VersionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    for (String line : new VersionInfo().getVersion()) {
      spec.commandLine().getOut().println(line);
    }
    return 0;
  }
}
