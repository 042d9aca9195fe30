package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.RequiredTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shipped systemd units: {@code systemd-analyze verify} accepts them (with the JDK path made to
 * exist here), they carry the hardening and notify settings docs/service.md promises, their JVM
 * flags are the ones every Tidestore JVM gets, and the real jar accepts their command line.
 */
class ServiceUnitIT {
  private static final String UNIT_JAVA = "/opt/tidestore/jdk/bin/java";
  private static final String UNIT_JAR = "/opt/tidestore/tidestore.jar";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"tidestore-osd.service", "tidestore-mon.service"})
  void systemdAcceptsTheUnit(String name) throws Exception {
    RequiredTools.command("systemd-analyze", "systemd");
    String text = unit(name).replace(UNIT_JAVA, javaBinary());
    Path copy = Files.writeString(dir.resolve(name), text);
    try (OsdProcess verify =
        OsdProcess.startCommand("systemd-analyze", "verify", "--man=no", copy.toString())) {
      int rc = verify.awaitExit(Duration.ofSeconds(60));
      // Unknown keys and bad values are only warnings to systemd, so any output fails too.
      assertEquals(0, rc, verify.output());
      assertEquals("", verify.output().strip(), "systemd-analyze verify " + name);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tidestore-osd.service", "tidestore-mon.service"})
  void theUnitIsHardenedAndWaitsForReady(String name) throws Exception {
    List<String> lines = unit(name).lines().map(String::strip).toList();
    for (String setting :
        List.of(
            "Type=notify",
            "User=tidestore",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ReadWritePaths=/var/lib/tidestore",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6")) {
      assertTrue(lines.contains(setting), name + " lacks " + setting);
    }
    if (name.contains("osd")) {
      assertTrue(lines.contains("LimitMEMLOCK=infinity"), name + ": io_uring needs locked memory");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tidestore-osd.service", "tidestore-mon.service"})
  void theUnitRunsTheJarWithEveryJvmFlagAndACommandLineItAccepts(String name) throws Exception {
    List<String> exec = execStart(unit(name));
    assertEquals(UNIT_JAVA, exec.get(0), "the unit runs the installed JDK's java");
    int jar = exec.indexOf("-jar");
    assertTrue(jar > 0 && exec.get(jar + 1).equals(UNIT_JAR), exec.toString());
    assertEquals(OsdProcess.jvmFlags(), exec.subList(1, jar), "bin/jdk.sh's JVM flags, in order");

    // The daemon's own parser takes the unit's arguments (and the shipped conf file): --help
    // after them prints the usage only once every option before it parsed.
    List<String> args = new ArrayList<>();
    for (String arg : exec.subList(jar + 2, exec.size())) {
      args.add(
          arg.equals("/etc/tidestore/tidestore.conf")
              ? OsdProcess.ROOT.resolve("conf/tidestore.conf").toString()
              : arg);
    }
    args.add("--help");
    String help = OsdProcess.run(args.toArray(String[]::new));
    assertTrue(help.contains("Usage: tidestore " + args.get(0)), help);
  }

  private static String unit(String name) throws Exception {
    return Files.readString(OsdProcess.ROOT.resolve("conf").resolve(name), StandardCharsets.UTF_8);
  }

  /** ExecStart's words, its backslash-continued lines joined. */
  private static List<String> execStart(String unit) {
    String joined = unit.replace("\\\n", " ");
    String line =
        joined
            .lines()
            .filter(l -> l.startsWith("ExecStart="))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no ExecStart"));
    return Arrays.stream(line.substring("ExecStart=".length()).trim().split("\\s+")).toList();
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
