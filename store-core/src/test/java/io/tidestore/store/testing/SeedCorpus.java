package io.tidestore.store.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The hand-made seeds of a fuzz target: valid encodings a test builds with the codec's own writer,
 * checked in as files in the target's Inputs directory (Jazzer replays them in the normal suite).
 * {@link #check} asserts the files are what the writer writes today, so a change of encoding that
 * leaves the seeds stale fails; with {@code -Dfuzz.writeSeeds=true} it writes them instead.
 */
public final class SeedCorpus {
  private SeedCorpus() {}

  /**
   * Checks (or writes) {@code seeds}, file name to bytes, as {@code
   * src/test/resources/<package>/<Class>Inputs/<method>/} of the module the test runs in.
   */
  public static void check(Class<?> target, String method, Map<String, byte[]> seeds) {
    Path dir =
        Path.of("src", "test", "resources")
            .resolve(target.getPackageName().replace('.', '/'))
            .resolve(target.getSimpleName() + "Inputs")
            .resolve(method);
    boolean write = Boolean.getBoolean("fuzz.writeSeeds");
    try {
      if (write) {
        Files.createDirectories(dir);
      }
      for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
        Path file = dir.resolve(seed.getKey());
        if (write) {
          Files.write(file, seed.getValue());
        } else {
          assertTrue(Files.isRegularFile(file), file + " is missing (-Dfuzz.writeSeeds=true)");
          assertArrayEquals(
              seed.getValue(),
              Files.readAllBytes(file),
              file + " is not the codec's encoding (-Dfuzz.writeSeeds=true)");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code body} after one byte {@code first}: a seed for a target whose first byte selects. */
  public static byte[] prefixed(int first, byte[] body) {
    byte[] input = new byte[body.length + 1];
    input[0] = (byte) first;
    System.arraycopy(body, 0, input, 1, body.length);
    return input;
  }
}
