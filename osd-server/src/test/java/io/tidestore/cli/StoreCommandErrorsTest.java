package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** mkfs and fsck refuse bad input with a usage line that names the problem, and touch nothing. */
class StoreCommandErrorsTest {
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cli = TidestoreMain.newCommandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void mkfsRefusesBadGeometryBeforeLookingAtTheDisk() {
    Path data = dir.resolve("store");
    Run negative = run("mkfs", "--data", data.toString(), "--shard-size", "-5m");
    assertEquals(2, negative.exit(), negative.err());
    assertTrue(negative.err().contains("--shard-size"), negative.err());
    Run tooMany = run("mkfs", "--data", data.toString(), "--shards", "100000");
    assertEquals(2, tooMany.exit(), tooMany.err());
    assertTrue(tooMany.err().contains("shards must be 1..1024"), tooMany.err());
    Run huge = run("mkfs", "--data", data.toString(), "--shard-size", "99999999999999999999");
    assertEquals(2, huge.exit(), huge.err());
    assertTrue(huge.err().contains("too large"), huge.err());
    assertFalse(huge.err().contains("java.lang"), huge.err());
    assertFalse(Files.exists(data), "nothing created for a refused mkfs");
  }

  @Test
  void fsckOfAMissingDirectoryCreatesNothing() {
    Path missing = dir.resolve("nope");
    Run r = run("fsck", "--data", missing.toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().contains("no store at"), r.err());
    assertFalse(Files.exists(missing));
  }
}
