package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/tidestore's JDK discovery, run as a user would: with JAVA_HOME unset and Java 17 on PATH. */
class LauncherIT {
  private static final Path LAUNCHER = OsdProcess.ROOT.resolve("bin/tidestore");
  @TempDir Path dir;

  private record Result(int code, String output) {}

  private Result run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = LAUNCHER.toString();
    System.arraycopy(args, 0, command, 1, args.length);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("JAVA_HOME");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new Result(p.exitValue(), out);
  }

  /** A PATH whose only java is a fake Java 17, so discovery must go on to the JVM directory. */
  private String pathWithJava17() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin17"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n");
    java.toFile().setExecutable(true);
    return bin + ":/usr/bin:/bin";
  }

  @Test
  void findsJdk25InTheJvmDirectoryWhenPathHasOnly17() throws Exception {
    Result r = run(Map.of("PATH", pathWithJava17()), "version");
    assertEquals(0, r.code(), r.output());
    assertTrue(r.output().contains("tidestore "), r.output());
    assertTrue(r.output().matches("(?s).*JDK 2[5-9].*"), r.output());
  }

  @Test
  void saysPlainlyWhenThereIsNoJdk25() throws Exception {
    Path emptyJvms = Files.createDirectories(dir.resolve("jvm"));
    Result r =
        run(
            Map.of("PATH", pathWithJava17(), "TIDESTORE_JVM_DIRS", emptyJvms.toString()),
            "version");
    assertEquals(1, r.code(), r.output());
    assertTrue(r.output().contains("no JDK 25 or newer found"), r.output());
    assertTrue(r.output().contains("Java 17"), r.output());
    assertTrue(r.output().contains("JAVA_HOME: not set"), r.output());
  }
}
