package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cli.TidestoreMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The man pages the build generates (osd-server's pom: picocli's ManPageGenerator, then
 * Asciidoctor's manpage backend): one roff page per command the CLI has, named as man looks for it
 * ({@code tidestore-image-create.1}), each naming every option of its command. A command added
 * without its page, or a page generation that silently stopped, fails here.
 */
class ManPagesIT {
  private static final Path MAN = OsdProcess.ROOT.resolve("osd-server/target/man");

  @Test
  void everyCommandHasAPageNamingEachOfItsOptions() throws Exception {
    List<CommandSpec> commands = new ArrayList<>();
    collect(new CommandLine(TidestoreMain.class).getCommandSpec(), commands);
    assertTrue(commands.size() >= 30, "commands found: " + commands.size());
    for (CommandSpec command : commands) {
      String name = command.qualifiedName("-");
      Path page = MAN.resolve(name + ".1");
      assertTrue(Files.isRegularFile(page), "no man page " + page + " for `" + name + "`");
      String roff = Files.readString(page);
      assertTrue(
          roff.contains(".TH \"" + roff(name.toUpperCase(java.util.Locale.ROOT)) + "\" \"1\""),
          page + " has no .TH header for " + name);
      for (OptionSpec option : command.options()) {
        if (!option.hidden()) {
          assertTrue(
              roff.contains(roff(option.longestName())),
              page + " does not name " + option.longestName());
        }
      }
    }
  }

  private static void collect(CommandSpec spec, List<CommandSpec> into) {
    if (spec.usageMessage().hidden()) {
      return;
    }
    into.add(spec);
    for (CommandLine sub : spec.subcommands().values()) {
      // Aliases map to the same spec: visit each command once.
      if (into.stream().noneMatch(s -> s == sub.getCommandSpec())) {
        collect(sub.getCommandSpec(), into);
      }
    }
  }

  /** How Asciidoctor's manpage backend writes a hyphen (and so every option name) in roff. */
  private static String roff(String text) {
    return text.replace("-", "\\-");
  }
}
