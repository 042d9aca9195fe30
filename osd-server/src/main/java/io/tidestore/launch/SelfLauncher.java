package io.tidestore.launch;

import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that runs another Tidestore command in a new JVM from the same jar and with the
 * same JVM flags as this one ({@code java <flags> -jar tidestore.jar ...}), so the daemon and the
 * load generator are separate processes whose CPU is sampled apart. Outside a jar (tests run from
 * classes) it uses this JVM's class path and the main class instead.
 */
public final class SelfLauncher {
  private static final String MAIN = "io.tidestore.cli.TidestoreMain";

  private SelfLauncher() {}

  /** {@code java <flags> -jar JAR} (or {@code -cp CP MAIN}), ready for a command's arguments. */
  public static List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // The module flags (--enable-native-access, --add-opens, ...) and heap settings carry
      // over; agents and debugger options of this JVM do not.
      if (arg.startsWith("--") || arg.startsWith("-Xm") || arg.startsWith("-XX:")) {
        command.add(arg);
      }
    }
    Path jar = jar();
    if (jar != null) {
      command.add("-jar");
      command.add(jar.toString());
    } else {
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(MAIN);
    }
    return command;
  }

  /** This jar, or null when running from a class directory. */
  public static Path jar() {
    try {
      Path location =
          Path.of(SelfLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Files.isRegularFile(location) && location.toString().endsWith(".jar")
          ? location
          : null;
    } catch (URISyntaxException | SecurityException e) {
      return null;
    }
  }
}
