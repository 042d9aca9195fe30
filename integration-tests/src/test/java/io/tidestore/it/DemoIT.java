package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tidestore demo}, the README's first command, with a shortened plan: it must print the
 * table, leave the report and charts, and tear the daemon and its store down, also when
 * interrupted.
 */
class DemoIT {
  private static final Pattern DAEMON_PID = Pattern.compile("daemon pid (\\d+)");

  @TempDir Path dir;

  @Test
  void demoPrintsTheTableWritesChartsAndCleansUp() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Path out = dir.resolve("demo");
    long daemon;
    try (OsdProcess demo =
        OsdProcess.start(
            "demo",
            "--iodepths",
            "1",
            "--runtime",
            "1",
            "--ramp",
            "0",
            "--work-dir",
            work.toString(),
            "--out",
            out.toString())) {
      try {
        assertEquals(0, demo.awaitExit(Duration.ofSeconds(300)), demo.output());
      } finally {
        killChildren(demo);
      }
      String output = demo.output();
      assertTrue(output.contains("[4/4] seqwrite64k iodepth=1"), output);
      assertTrue(
          output.contains("| iodepth | iops | total_ios | clat_ms | clat_stdev | usr_cpu |"),
          output);
      assertTrue(output.contains("report: " + out.resolve("demo/report.md")), output);
      daemon = daemonPid(output);
    }
    assertTrue(Files.size(out.resolve("demo/charts/randread4k-latency.png")) > 0);
    assertTrue(Files.size(out.resolve("demo/charts/seqwrite64k-cpu.svg")) > 0);
    assertTrue(Files.readString(out.resolve("demo/report.md")).contains("server observed: pid"));
    assertGone(daemon, work);
  }

  @Test
  void interruptStopsTheDaemonAndDeletesTheStore() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    try (OsdProcess demo = longDemo(work)) {
      try {
        long daemon = daemonPid(demo.awaitLine("daemon pid", Duration.ofSeconds(180)));
        demo.awaitLine("sweep 'demo'", Duration.ofSeconds(120));
        // SIGTERM, not SIGINT: a JVM whose parent ignores SIGINT (any background job, e.g. a CI
        // runner's) inherits that and never sees Ctrl-C. Both run the same shutdown hook.
        demo.signal("TERM");
        demo.awaitExit(Duration.ofSeconds(60));
        assertGone(daemon, work);
      } finally {
        killChildren(demo);
      }
    }
  }

  @Test
  void sigkilledDemoLeavesNoDaemonBehind() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    try (OsdProcess demo = longDemo(work)) {
      long daemon = -1;
      try {
        daemon = daemonPid(demo.awaitLine("daemon pid", Duration.ofSeconds(180)));
        demo.awaitLine("sweep 'demo'", Duration.ofSeconds(120));
        // SIGKILL runs no teardown in the demo: the daemon started with --exit-with-parent must
        // notice its parent is gone and stop by itself.
        demo.signal("KILL");
        demo.awaitExit(Duration.ofSeconds(60));
        var handle = ProcessHandle.of(daemon);
        if (handle.isPresent()) {
          handle.get().onExit().get(60, TimeUnit.SECONDS);
        }
        assertTrue(ProcessHandle.of(daemon).map(h -> !h.isAlive()).orElse(true));
      } finally {
        killChildren(demo);
        // Orphaned (reparented) once the demo died, so not among its children any more.
        ProcessHandle.of(daemon).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** A demo whose sweep runs long enough to be interrupted in the middle. */
  private OsdProcess longDemo(Path work) throws Exception {
    return OsdProcess.start(
        "demo",
        "--iodepths",
        "1,2,4,8,16",
        "--runtime",
        "5",
        "--work-dir",
        work.toString(),
        "--out",
        dir.resolve("demo").toString());
  }

  /**
   * A demo killed by a failing test's close (SIGKILL) cannot run its teardown: kill its children
   * (the daemon, a bench) first so no daemon outlives the test.
   */
  private static void killChildren(OsdProcess demo) {
    ProcessHandle.of(demo.pid())
        .ifPresent(h -> h.descendants().forEach(ProcessHandle::destroyForcibly));
  }

  private static long daemonPid(String text) {
    Matcher m = DAEMON_PID.matcher(text);
    assertTrue(m.find(), text);
    return Long.parseLong(m.group(1));
  }

  /** The daemon has exited (or exits within a deadline) and its temporary store is gone. */
  private static void assertGone(long pid, Path work) throws Exception {
    var daemon = ProcessHandle.of(pid);
    if (daemon.isPresent()) {
      daemon.get().onExit().get(60, TimeUnit.SECONDS);
    }
    try (Stream<Path> left = Files.list(work)) {
      assertEquals(List.of(), left.toList());
    }
  }
}
