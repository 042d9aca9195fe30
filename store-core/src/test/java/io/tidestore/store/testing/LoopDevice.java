package io.tidestore.store.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A loop block device over a sparse file, for tests of stores on raw devices ({@code losetup},
 * root). Where loop devices are absent the test is skipped with the reason printed; they exist on
 * every machine this project targets.
 */
public final class LoopDevice implements AutoCloseable {
  private final Path backing;
  private final Path device;

  private LoopDevice(Path backing, Path device) {
    this.backing = backing;
    this.device = device;
  }

  /** A new loop device of {@code bytes} over a file in {@code dir} (a real file system). */
  public static LoopDevice create(Path dir, long bytes) throws IOException, InterruptedException {
    if (!Files.exists(Path.of("/dev/loop-control")) || !RequiredTools.onPath("losetup")) {
      String why = "loop devices are absent here (no /dev/loop-control or losetup)";
      System.out.println("SKIPPED: " + why);
      Assumptions.abort(why);
    }
    Path backing = Files.createTempFile(dir, "loop", ".img");
    try (var f = new java.io.RandomAccessFile(backing.toFile(), "rw")) {
      f.setLength(bytes);
    }
    Process p =
        new ProcessBuilder("losetup", "--find", "--show", backing.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      Files.deleteIfExists(backing);
      String why = "losetup failed (not root?): " + out;
      System.out.println("SKIPPED: " + why);
      Assumptions.abort(why);
    }
    return new LoopDevice(backing, Path.of(out));
  }

  public Path path() {
    return device;
  }

  @Override
  public void close() throws IOException {
    try {
      new ProcessBuilder("losetup", "--detach", device.toString())
          .start()
          .waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Files.deleteIfExists(backing);
  }
}
