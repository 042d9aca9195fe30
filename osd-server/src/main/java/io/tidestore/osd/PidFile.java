package io.tidestore.osd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The {@code --pid-file} for service managers. It is a report, not the lock: the data directory's
 * flock decides who runs, so a pid file left by kill -9 is simply overwritten.
 */
public final class PidFile implements AutoCloseable {
  private final Path path;
  private final String content;

  private PidFile(Path path, String content) {
    this.path = path;
    this.content = content;
  }

  /** Writes the pid atomically (temp file then rename), so readers never see a partial file. */
  public static PidFile write(Path path, long pid) throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    String content = pid + "\n";
    Path temp = path.resolveSibling(path.getFileName() + ".tmp");
    Files.writeString(temp, content, StandardCharsets.US_ASCII);
    Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return new PidFile(path, content);
  }

  /** Removes the file if it is still ours. */
  @Override
  public void close() throws IOException {
    try {
      if (Files.readString(path, StandardCharsets.US_ASCII).equals(content)) {
        Files.delete(path);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // Already gone: nothing to clean up.
    }
  }
}
