package io.tidestore.cli;

import io.tidestore.store.engine.Fsck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore fsck}: verifies a store offline (it takes the data directory's lock, so it
 * refuses to run under a live daemon). Exit code 0 when clean, 1 when any fault was found.
 */
@Command(
    name = "fsck",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Check a store: superblocks, the newest index checkpoint, every journal record after it,"
          + " every mapped block's crc32c, and free-space accounting.",
      "Exits 0 when clean, 1 when a fault was found (each one is explained)."
    })
final class FsckCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--data", paramLabel = "DIR", required = true, description = "Data directory.")
  Path data;

  @Override
  public Integer call() throws IOException {
    if (!java.nio.file.Files.isDirectory(data)) {
      // Checking must not create anything: no directory, no lock file.
      spec.commandLine()
          .getErr()
          .println("tidestore fsck: no store at " + data + " (not a directory)");
      return 1;
    }
    int faults = Fsck.check(data, spec.commandLine().getOut()::println);
    return faults == 0 ? 0 : 1;
  }
}
