package io.tidestore.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore completion}: picocli's bash completion script for every command and option,
 * generated from the command tree at run time, so it cannot fall behind the commands. It also runs
 * in zsh (the script loads bashcompinit there).
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Print a bash/zsh completion script for tidestore.",
      "Use: source <(bin/tidestore completion)   (or save it in /etc/bash_completion.d/tidestore)"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(AutoComplete.bash("tidestore", spec.root().commandLine()));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
