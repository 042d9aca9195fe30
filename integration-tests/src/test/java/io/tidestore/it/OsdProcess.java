package io.tidestore.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real {@code tidestore.jar} run as a child process, with its output captured line by line.
 * Tests start it on free ports ({@code 0}) and learn the bound ports from the ready line.
 */
final class OsdProcess implements AutoCloseable {
  static final Path JAR =
      Path.of(System.getProperty("tidestore.jar", "../osd-server/target/tidestore.jar"));
  static final Path ROOT = Path.of(System.getProperty("tidestore.root", ".."));

  /** store-core's test fixtures (crash-test child, I/O wrappers): a test-jar, never shipped. */
  static final Path FIXTURES =
      Path.of(
          System.getProperty(
              "tidestore.fixtures.jar",
              "../store-core/target/store-core-0.1.0-SNAPSHOT-tests.jar"));

  private static final Pattern METRICS_PORT = Pattern.compile("metrics=(\\d+)");
  private static final Pattern PORTS = Pattern.compile("object=(\\d+) nbd=(\\d+) metrics=(\\d+)");

  /** The ports a daemon bound, from its ready line. */
  record Ports(int object, int nbd, int metrics) {}

  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread pump;
  private boolean outputEnded; // guarded by lines

  private OsdProcess(Process process) {
    this.process = process;
    this.pump = Thread.ofPlatform().daemon().name("osd-output").start(this::pumpOutput);
  }

  /** {@code java <flags> -jar tidestore.jar ARGS...}, stdout and stderr merged. */
  static OsdProcess start(String... args) throws IOException {
    return startWithEnv(Map.of(), args);
  }

  /** As {@link #start}, with {@code env} added to the environment (e.g. NOTIFY_SOCKET). */
  static OsdProcess startWithEnv(Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags());
    command.add("-jar");
    command.add(JAR.toString());
    command.addAll(Arrays.asList(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    return new OsdProcess(builder.start());
  }

  /** Any helper command a test drives (a listener, a client), its output captured the same way. */
  static OsdProcess startCommand(String... command) throws IOException {
    return new OsdProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
  }

  /**
   * {@code java <flags> -cp tidestore.jar:FIXTURES MAIN ARGS...}: a main class of the test
   * fixtures, with the daemon's jar and the fixtures on its classpath.
   */
  static OsdProcess startFixture(String mainClass, String... args) throws IOException {
    if (!java.nio.file.Files.isRegularFile(FIXTURES)) {
      throw new IOException(FIXTURES + " is missing: build store-core's test-jar (./mvnw package)");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags());
    command.add("-cp");
    command.add(JAR + java.io.File.pathSeparator + FIXTURES);
    command.add(mainClass);
    command.addAll(Arrays.asList(args));
    return new OsdProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
  }

  /**
   * {@code tidestore osd} as {@link #startOsd}, but run from the class path {@code
   * tidestore.jar:FIXTURES} with the JVM system properties {@code props} (e.g. {@code
   * -Dtidestore.test.faults=FILE}), so the test-jar's I/O wrappers load into the real daemon.
   */
  static OsdProcess startOsdWithFixtures(List<String> props, Path data, String... extra)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags());
    command.addAll(props);
    command.add("-cp");
    command.add(JAR + java.io.File.pathSeparator + FIXTURES);
    command.add("io.tidestore.cli.TidestoreMain");
    command.addAll(List.of("osd", "--data", data.toString()));
    command.addAll(List.of("--metrics-port", "0", "--port", "0", "--nbd-port", "0"));
    command.addAll(Arrays.asList(extra));
    return new OsdProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
  }

  /** {@code tidestore osd} on {@code data} with every port free ({@code 0}), plus {@code extra}. */
  static OsdProcess startOsd(Path data, String... extra) throws IOException {
    List<String> args = new ArrayList<>(List.of("osd", "--data", data.toString()));
    args.addAll(List.of("--metrics-port", "0", "--port", "0", "--nbd-port", "0"));
    args.addAll(Arrays.asList(extra));
    return start(args.toArray(String[]::new));
  }

  /**
   * {@link #startOsd} with {@code --engine} and the options in {@code engine} (the engine's name,
   * then any more options, separated by spaces), and a 16 MiB extent cache.
   */
  static OsdProcess startEngine(Path data, String engine) throws IOException {
    List<String> args = new ArrayList<>(List.of("--engine"));
    args.addAll(List.of(engine.split(" ")));
    args.addAll(List.of("--cache-size", "16m"));
    return startOsd(data, args.toArray(String[]::new));
  }

  /** The JVM flags the build passes to test JVMs, the same set bin/tidestore uses. */
  static List<String> jvmFlags() {
    String flags = System.getProperty("tidestore.jvm.flags", "--enable-native-access=ALL-UNNAMED");
    return Arrays.stream(flags.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
  }

  private void pumpOutput() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        System.out.println("[osd " + process.pid() + "] " + line);
        synchronized (lines) {
          lines.add(line);
          lines.notifyAll();
        }
      }
    } catch (IOException e) {
      // The process went away; what was read stays in lines.
    } finally {
      synchronized (lines) {
        outputEnded = true;
        lines.notifyAll(); // a waiter learns at once that no more lines will come
      }
    }
  }

  /** Waits for a line containing {@code text}; fails with the output so far if none comes. */
  String awaitLine(String text, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int seen = 0;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (lines.get(seen).contains(text)) {
            return lines.get(seen);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || outputEnded) {
          throw new AssertionError(
              "no line containing '" + text + "' within " + timeout + "; output:\n" + output());
        }
        lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
  }

  /** Waits for readiness and returns the metrics port from the ready line. */
  int awaitReady() throws InterruptedException {
    String ready = awaitLine("tidestore osd ready", Duration.ofSeconds(30));
    Matcher m = METRICS_PORT.matcher(ready);
    if (!m.find()) {
      throw new AssertionError("ready line without metrics port: " + ready);
    }
    return Integer.parseInt(m.group(1));
  }

  /** Waits for the ready line; every bound port. */
  Ports awaitPorts() throws InterruptedException {
    String ready = awaitLine("tidestore osd ready", Duration.ofSeconds(60));
    Matcher m = PORTS.matcher(ready);
    if (!m.find()) {
      throw new AssertionError("ready line without ports: " + ready);
    }
    return new Ports(
        Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  /** Runs {@code tidestore ARGS...} to completion (60 s at most) and fails on a non-zero exit. */
  static String run(String... args) throws IOException, InterruptedException {
    try (OsdProcess p = start(args)) {
      int rc = p.awaitExit(Duration.ofSeconds(60));
      if (rc != 0) {
        throw new AssertionError(
            "tidestore " + String.join(" ", args) + " exited " + rc + ":\n" + p.output());
      }
      return p.output();
    }
  }

  String output() {
    synchronized (lines) {
      return String.join("\n", lines);
    }
  }

  /** A copy of every line read so far. */
  List<String> lines() {
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  /** Waits until at least {@code n} lines start with {@code prefix}; false at the deadline. */
  boolean awaitCount(String prefix, int n, Duration timeout) throws InterruptedException {
    return awaitCount(l -> l.startsWith(prefix), n, timeout);
  }

  /**
   * Waits until at least {@code n} lines contain {@code text} (log lines start with a timestamp);
   * false at the deadline.
   */
  boolean awaitCountContaining(String text, int n, Duration timeout) throws InterruptedException {
    return awaitCount(l -> l.contains(text), n, timeout);
  }

  private boolean awaitCount(java.util.function.Predicate<String> match, int n, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      while (true) {
        int c = 0;
        for (String l : lines) {
          if (match.test(l)) {
            c++;
          }
        }
        long left = deadline - System.nanoTime();
        if (c >= n || left <= 0 || !process.isAlive()) {
          return c >= n;
        }
        lines.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** SIGKILL, and wait for the process to be gone. */
  /** Whether the process still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
    pump.join(10_000);
  }

  /** SIGKILL to every one of {@code processes} at once, then waits for each to be gone. */
  static void kill9All(java.util.Collection<OsdProcess> processes) throws InterruptedException {
    for (OsdProcess p : processes) {
      p.process.destroyForcibly();
    }
    for (OsdProcess p : processes) {
      p.kill9();
    }
  }

  /** GET http://127.0.0.1:PORT/PATH (the daemon's /metrics and /status); the body. */
  static String httpGet(int port, String path) throws Exception {
    try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
      return http.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + port + path))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  long pid() {
    return process.pid();
  }

  /**
   * What a hung daemon was doing: its threads' stacks ({@code jcmd Thread.print}) and the kernel's
   * view of its io_uring and eventfd descriptors ({@code /proc/PID/fdinfo}), for a test's failure
   * message.
   */
  String hangReport() {
    StringBuilder report = new StringBuilder();
    try {
      Process jcmd =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(process.pid()),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      report.append(new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      Path fds = Path.of("/proc", Long.toString(process.pid()), "fd");
      try (var entries = java.nio.file.Files.list(fds)) {
        for (Path fd : entries.sorted().toList()) {
          String target = java.nio.file.Files.readSymbolicLink(fd).toString();
          if (target.contains("io_uring") || target.contains("eventfd")) {
            Path info =
                Path.of("/proc", Long.toString(process.pid()), "fdinfo").resolve(fd.getFileName());
            report
                .append("\nfd ")
                .append(fd.getFileName())
                .append(" -> ")
                .append(target)
                .append('\n');
            report.append(java.nio.file.Files.readString(info));
          }
        }
      }
    } catch (IOException e) {
      report.append("\n(hang report incomplete: ").append(e).append(')');
    }
    return report.toString();
  }

  void signal(String name) throws IOException, InterruptedException {
    int rc = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor();
    if (rc != 0) {
      throw new IOException("kill -" + name + " failed: " + rc);
    }
  }

  /** Waits for exit and returns the code; fails if it takes longer than {@code timeout}. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("process did not exit within " + timeout + "; output:\n" + output());
    }
    pump.join(timeout.toMillis());
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
