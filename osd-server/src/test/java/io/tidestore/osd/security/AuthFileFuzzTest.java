package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.osd.config.MemoryTempDir;
import io.tidestore.osd.config.Utf8Lines;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LineErrors;
import io.tidestore.store.testing.LogTrap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes the daemon's {@code --auth-file} as it reads it at startup: the input is the file, written
 * to disk and read by {@link AuthFile#read}. The contract (AuthFile, docs/security.md): an
 * IOException whose message names the file and a line of it, or grants that are what the file says:
 * every named client has one grant per line naming it, each with an access, an image name an image
 * can have or none, a pool name a pool can have or none, and each grant written back as a line
 * ({@code NAME allow ...}, its canonical form) reads as the same grant. No other exception, nothing
 * logged at SEVERE, allocation bounded by the file's size.
 */
class AuthFileFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore");
  // The cluster map's pool names (cluster.map.MapChanges) and osd.image's image names.
  private static final Pattern POOL = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern IMAGE = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  // In memory: a file rewritten per input on the disk took longer than reading it (MemoryTempDir).
  @TempDir(factory = MemoryTempDir.class)
  static Path dir;

  @FuzzTest
  void read(byte[] input) throws IOException {
    Path file = dir.resolve("auth");
    Files.write(file, input);
    AllocationBound.check("auth file", input.length, 1 << 20, 64, () -> exercise(file, input));
    LOG.check();
  }

  private static void exercise(Path file, byte[] input) {
    AuthFile auth;
    try {
      auth = AuthFile.read(file);
    } catch (IOException e) {
      LineErrors.assertNamesLine(e.getMessage(), file.toString(), LineErrors.lineCount(input));
      return;
    }
    Map<String, Integer> linesPerName = linesPerName(input);
    assertEquals(linesPerName.size(), auth.clients(), "clients of " + linesPerName);
    linesPerName.forEach(
        (name, lines) -> {
          List<Grant> grants = auth.caps(name).grants();
          assertEquals((int) lines, grants.size(), name + ": " + grants);
          for (Grant grant : grants) {
            assertSane(file, name, grant);
          }
        });
  }

  private static void assertSane(Path file, String name, Grant grant) {
    assertNotNull(grant.access(), name + ": " + grant);
    assertTrue(grant.image() == null || IMAGE.matcher(grant.image()).matches(), "image " + grant);
    assertTrue(grant.pool() == null || POOL.matcher(grant.pool()).matches(), "pool " + grant);
    String line = name + " " + grant;
    try {
      assertEquals(
          List.of(grant), AuthFile.parse(file, List.of(line)).caps(name).grants(), "re-read");
    } catch (IOException e) {
      throw new AssertionError("the grant written back is refused: " + line, e);
    }
  }

  /** The clients the file names, each with the number of its lines. */
  private static Map<String, Integer> linesPerName(byte[] input) {
    List<String> lines;
    try {
      lines = Utf8Lines.decode(input);
    } catch (Utf8Lines.NotUtf8Exception e) {
      throw new AssertionError("the file was read, yet is not UTF-8", e);
    }
    Map<String, Integer> names = new LinkedHashMap<>();
    for (String line : lines) {
      int hash = line.indexOf('#');
      String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (!text.isEmpty()) {
        names.merge(text.split("\\s+", -1)[0], 1, Integer::sum);
      }
    }
    return names;
  }
}
