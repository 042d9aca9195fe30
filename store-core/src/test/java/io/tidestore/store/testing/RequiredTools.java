package io.tidestore.store.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The external tools a test drives (fio, qemu-io, nbdinfo, a C compiler, ...). bin/test installs
 * all of them and runs with {@code -Dtidestore.tools.required=true}: there a missing tool fails the
 * test, so a broken setup can never pass as a skip. Elsewhere (a bare {@code ./mvnw verify}) the
 * test is skipped with the reason.
 */
public final class RequiredTools {
  private static final boolean REQUIRED = Boolean.getBoolean("tidestore.tools.required");

  private RequiredTools() {}

  /** Requires {@code command} on the PATH; {@code pkg} is the Debian package that has it. */
  public static void command(String command, String pkg) {
    require(onPath(command), command + " (apt-get install " + pkg + ")");
  }

  /** Requires the file {@code path}; {@code pkg} is the Debian package that has it. */
  public static void file(Path path, String pkg) {
    require(Files.exists(path), path + " (apt-get install " + pkg + ")");
  }

  private static void require(boolean present, String what) {
    if (present) {
      return;
    }
    String message = what + " is not installed";
    if (REQUIRED) {
      Assertions.fail(message + "; bin/test installs it, so its absence is a broken setup");
    }
    Assumptions.abort(message + ": skipped (bin/test installs it and runs this test)");
  }

  /** Whether an executable named {@code command} is on the PATH. */
  public static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
