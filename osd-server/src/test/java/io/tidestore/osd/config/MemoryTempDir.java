package io.tidestore.osd.config;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * A {@code @TempDir} in memory (tmpfs, {@code /dev/shm}) where there is one, else JUnit's usual
 * place. For the fuzz targets that write each input as a file the daemon then reads: on the ext4
 * under {@code /tmp}, rewriting a file in place costs 0.1 to 2 ms (a truncated file is flushed on
 * close, ext4's auto_da_alloc), more than the reading it is there for. The file is the same to the
 * reader either way.
 */
public final class MemoryTempDir implements TempDirFactory {
  @Override
  public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension)
      throws Exception {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return Files.createTempDirectory(shm, "junit-");
    }
    return Files.createTempDirectory("junit-");
  }
}
