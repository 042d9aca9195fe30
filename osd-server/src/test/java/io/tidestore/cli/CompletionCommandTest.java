package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tidestore completion}'s script, sourced by a real bash that then completes words. */
class CompletionCommandTest {
  @TempDir Path dir;

  @Test
  void bashCompletesSubcommandsAndOptionsFromTheScript() throws Exception {
    RequiredTools.command("bash", "bash");
    CliRun run = CliRun.of("completion");
    assertEquals(0, run.exit(), run.err());
    Path script = Files.writeString(dir.resolve("tidestore.bash"), run.out());

    // As bash would call the completion function for `tidestore mo<TAB>`.
    assertEquals(List.of("mon"), complete(script, "tidestore", "mo"));
    assertEquals(
        List.of("--cache-policy", "--cache-size", "--cache-write-max"),
        complete(script, "tidestore", "osd", "--cache"));
    // The command word may be a path (bin/tidestore): bash then looks the name up by its last
    // part, which the script registers.
    assertTrue(run.out().contains("complete -F _complete_tidestore"), run.out());
  }

  /** COMPREPLY for the words given, the last one being completed. */
  private static List<String> complete(Path script, String... words)
      throws IOException, InterruptedException {
    String program =
        "source "
            + script
            // compopt only works while readline runs a completion; here bash calls the function.
            + "\ncompopt() { :; }\nCOMP_WORDS=("
            + String.join(" ", words)
            + ")\nCOMP_CWORD="
            + (words.length - 1)
            + "\nCOMP_LINE=\"${COMP_WORDS[*]}\"\nCOMP_POINT=${#COMP_LINE}\n"
            + "_complete_tidestore\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
    Process bash = new ProcessBuilder("bash", "-c", program).redirectErrorStream(true).start();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
    assertEquals(0, bash.exitValue(), out);
    return out.lines().filter(l -> !l.isBlank()).sorted().toList();
  }
}
