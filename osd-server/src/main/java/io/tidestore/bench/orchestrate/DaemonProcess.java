package io.tidestore.bench.orchestrate;

import io.tidestore.launch.SelfLauncher;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Tidestore daemon started from this jar as a separate process ({@code tidestore osd} on free
 * ports), so its CPU per thread is sampled apart from the load generator; the bound ports come from
 * its ready line. Its output goes to a log file.
 */
final class DaemonProcess implements AutoCloseable {
  private static final Pattern READY =
      Pattern.compile("tidestore osd ready: .* object=(\\d+) nbd=(\\d+) metrics=(\\d+)");

  private final Process process;
  private final Path log;
  private final int objectPort;
  private final int nbdPort;
  private final int metricsPort;

  private DaemonProcess(Process process, Path log, int objectPort, int nbdPort, int metricsPort) {
    this.process = process;
    this.log = log;
    this.objectPort = objectPort;
    this.nbdPort = nbdPort;
    this.metricsPort = metricsPort;
  }

  /**
   * Starts {@code tidestore osd --data DATA} on free ports with {@code options} after ours (so they
   * may override them) and waits up to {@code timeout} for it to be ready.
   */
  public static DaemonProcess start(Path data, List<String> options, Path log, Duration timeout)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(SelfLauncher.command());
    command.addAll(
        List.of(
            "osd",
            "--data",
            data.toString(),
            "--port",
            "0",
            "--nbd-port",
            "0",
            "--metrics-port",
            "0",
            // Killed with SIGKILL, this process cannot stop its daemon; the daemon stops itself.
            "--exit-with-parent"));
    command.addAll(options);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    PrintWriter logFile =
        new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true);
    Object lock = new Object();
    Matcher[] ready = new Matcher[1];
    Thread.ofPlatform()
        .daemon()
        .name("osd-log")
        .start(
            () -> {
              try (logFile;
                  BufferedReader reader =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                  logFile.println(line);
                  Matcher m = READY.matcher(line);
                  if (m.find()) {
                    synchronized (lock) {
                      ready[0] = m;
                      lock.notifyAll();
                    }
                  }
                }
              } catch (IOException e) {
                // The daemon's output closed: it exited, which the waiter sees.
              }
            });
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (ready[0] == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !process.isAlive()) {
          process.destroyForcibly();
          throw new IOException(
              "the daemon did not become ready"
                  + (process.isAlive() ? " within " + timeout : "")
                  + "; its log: "
                  + log);
        }
        lock.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 500)));
      }
    }
    Matcher m = ready[0];
    return new DaemonProcess(
        process,
        log,
        Integer.parseInt(m.group(1)),
        Integer.parseInt(m.group(2)),
        Integer.parseInt(m.group(3)));
  }

  public long pid() {
    return process.pid();
  }

  public int objectPort() {
    return objectPort;
  }

  public int nbdPort() {
    return nbdPort;
  }

  public int metricsPort() {
    return metricsPort;
  }

  public Path log() {
    return log;
  }

  /** SIGTERM (the daemon stops cleanly), SIGKILL after 30 s; returns the exit code. */
  public int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    return process.isAlive() ? -1 : process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
  }
}
