package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** mkfs and fsck refuse bad input with a usage line that names the problem, and touch nothing. */
class StoreCommandErrorsTest {
  @TempDir Path dir;

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  @Test
  void mkfsRefusesBadGeometryBeforeLookingAtTheDisk() {
    Path data = dir.resolve("store");
    CliRun negative = run("mkfs", "--data", data.toString(), "--shard-size", "-5m");
    assertEquals(2, negative.exit(), negative.err());
    assertTrue(negative.err().contains("--shard-size"), negative.err());
    CliRun tooMany = run("mkfs", "--data", data.toString(), "--shards", "100000");
    assertEquals(2, tooMany.exit(), tooMany.err());
    assertTrue(tooMany.err().contains("shards must be 1..1024"), tooMany.err());
    CliRun huge = run("mkfs", "--data", data.toString(), "--shard-size", "99999999999999999999");
    assertEquals(2, huge.exit(), huge.err());
    assertTrue(huge.err().contains("too large"), huge.err());
    assertFalse(huge.err().contains("java.lang"), huge.err());
    assertFalse(Files.exists(data), "nothing created for a refused mkfs");
  }

  @Test
  void fsckOfAMissingDirectoryCreatesNothing() {
    Path missing = dir.resolve("nope");
    CliRun r = run("fsck", "--data", missing.toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().contains("no store at"), r.err());
    assertFalse(Files.exists(missing));
  }
}
