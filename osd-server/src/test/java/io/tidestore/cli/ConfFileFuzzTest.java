package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.osd.config.ConfFile;
import io.tidestore.osd.config.MemoryTempDir;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LineErrors;
import io.tidestore.store.testing.LogTrap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Fuzzes the daemon's {@code --conf} settings file as {@code tidestore osd --conf FILE} reads it:
 * the input is the file, written to disk and expanded by {@link ConfFile#expandArguments}, then the
 * expanded command line parsed by picocli as {@link TidestoreMain} does. The contract (ConfFile,
 * conf/tidestore.conf): a {@link ConfFile.ConfException} naming the file and a line of it, or
 * entries whose keys are the long options of {@code osd} (no alias picocli would not take as {@code
 * --KEY=VALUE}, not {@code conf}, not help or version), each set once, with a non-empty value that
 * holds no comment; those then parse, or fail with picocli's ParameterException exactly like a bad
 * flag. No other exception, nothing logged at SEVERE, allocation bounded by the file's size.
 */
class ConfFileFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore");

  // In memory: a file rewritten per input on the disk took longer than reading it (MemoryTempDir).
  @TempDir(factory = MemoryTempDir.class)
  static Path dir;

  private final CommandLine cli = TidestoreMain.newCommandLine();
  private final CommandSpec osd = cli.getSubcommands().get("osd").getCommandSpec();
  private final Set<String> keys = ConfFile.keys(osd);

  @FuzzTest
  void read(byte[] input) throws IOException {
    Path file = dir.resolve("fuzz.conf");
    Files.write(file, input);
    long lines = LineErrors.lineCount(input);
    AllocationBound.check("conf file", input.length, 1 << 20, 64, () -> exercise(file, lines));
    LOG.check();
  }

  private void exercise(Path file, long lines) {
    Map<String, ConfFile.Entry> entries;
    try {
      entries = ConfFile.read(file, osd);
    } catch (ConfFile.ConfException e) {
      LineErrors.assertNamesLine(e.getMessage(), file.toString(), lines);
      return;
    }
    int previousLine = 0;
    for (ConfFile.Entry entry : entries.values()) {
      assertTrue(keys.contains(entry.key()), "not a key of osd: " + entry);
      assertFalse(entry.value().isEmpty(), "empty value: " + entry);
      assertEquals(entry.value().strip(), entry.value(), "value not stripped: " + entry);
      assertFalse(entry.value().contains("#"), "comment in the value: " + entry);
      assertTrue(entry.line() > previousLine && entry.line() <= lines, "line of " + entry);
      previousLine = entry.line();
    }
    List<String> expanded;
    try {
      expanded = ConfFile.expandArguments(cli, List.of("osd", "--conf", file.toString()));
    } catch (ConfFile.ConfException e) {
      throw new AssertionError("read accepted the file, expandArguments refused it", e);
    }
    assertEquals(3 + entries.size(), expanded.size(), "" + expanded);
    try {
      cli.parseArgs(expanded.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      // a bad value, refused as the same flag on the command line would be
    }
  }
}
