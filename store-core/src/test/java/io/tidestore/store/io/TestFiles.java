package io.tidestore.store.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Scratch directories for direct-I/O tests. O_DIRECT is refused by tmpfs, so they live under {@code
 * -Dtidestore.test.dir} (default /var/tmp, a real disk on Debian).
 */
public final class TestFiles {
  private TestFiles() {}

  public static Path createDirectory(String prefix) throws IOException {
    Path root = Path.of(System.getProperty("tidestore.test.dir", "/var/tmp"));
    return Files.createTempDirectory(root, prefix);
  }

  public static void deleteRecursively(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
