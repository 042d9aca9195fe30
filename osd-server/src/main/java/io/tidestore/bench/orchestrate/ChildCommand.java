package io.tidestore.bench.orchestrate;

import io.tidestore.launch.SelfLauncher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs a Tidestore command (mkfs, image create) as a child of this jar, output to a log. */
public final class ChildCommand {
  private ChildCommand() {}

  /** Runs {@code tidestore ARGS...}; throws with the log's content when it fails. */
  public static void run(List<String> args, Path log) throws IOException, InterruptedException {
    run(List.of(), args, log);
  }

  /**
   * Runs {@code PREFIX... tidestore ARGS...} (a prefix such as {@code taskset -c 1}), appending its
   * output to {@code log}; throws with the log's content when it fails.
   */
  public static void run(List<String> prefix, List<String> args, Path log)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(SelfLauncher.command());
    command.addAll(args);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    int code;
    try {
      code = process.waitFor();
    } finally {
      process.destroy();
    }
    if (code != 0) {
      throw new IOException(
          "tidestore "
              + String.join(" ", args)
              + " failed (exit "
              + code
              + "):\n"
              + Files.readString(log, StandardCharsets.UTF_8).strip());
    }
  }
}
