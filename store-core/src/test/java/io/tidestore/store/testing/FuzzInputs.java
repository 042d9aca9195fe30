package io.tidestore.store.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The committed inputs of the fuzz targets ({@code src/test/resources/<package>/<Class>Inputs/}):
 * none may keep the name libFuzzer gave it ({@code crash-SHA1} and its kin). A finding is renamed
 * to say what it is once it is fixed (docs/reliability.md, "Running"). Its replay alone does not
 * enforce that: an input that was only running when a campaign was stopped (the JVM's exit makes
 * libFuzzer write it as {@code crash-SHA1}) replays clean, and one such file was committed
 * unnoticed.
 */
public final class FuzzInputs {
  private static final Pattern LIBFUZZER_NAME =
      Pattern.compile("(crash|timeout|oom|leak|slow-unit)-[0-9a-f]{40}");

  private FuzzInputs() {}

  /** Asserts that no Inputs directory of the module the test runs in holds a libFuzzer name. */
  public static void assertEveryInputNamed() {
    Path resources = Path.of("src", "test", "resources");
    if (!Files.isDirectory(resources)) {
      return;
    }
    List<Path> unnamed;
    try (Stream<Path> files = Files.walk(resources)) {
      unnamed =
          files
              .filter(Files::isRegularFile)
              .filter(f -> f.getParent().toString().contains("Inputs"))
              .filter(f -> LIBFUZZER_NAME.matcher(f.getFileName().toString()).matches())
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertEquals(
        List.of(),
        unnamed,
        "fuzz inputs still named by libFuzzer: replay each alone; a finding is fixed and renamed"
            + " to say what it is, an input a stopped campaign left is renamed or deleted");
  }
}
