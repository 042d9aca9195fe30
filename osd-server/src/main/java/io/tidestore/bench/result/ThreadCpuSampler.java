package io.tidestore.bench.result;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples a server process's CPU per thread and its RSS from {@code /proc/PID/task/TID/stat} and
 * {@code /proc/PID/statm}, as the seeds did with {@code top}: percent of one core (100 = one core
 * busy), RSS in MiB. Threads are grouped by name ({@code comm}), so the reactors, the classic
 * engine's workers, JIT and GC each get a curve. Also the process's context switches per second,
 * voluntary and involuntary summed over its threads ({@code /proc/PID/task/TID/status}): a thread
 * pool hands each op from thread to thread and a run-to-completion reactor does not, and the
 * switches per op show it.
 *
 * <p>Not thread-safe: one sampling thread calls {@link #sample(double)}; read the results after.
 */
public final class ThreadCpuSampler {
  /**
   * One observation: per-thread-name CPU percent over the last interval, and RSS.
   *
   * @param reactorUtilization busy percent of each reactor's last second by thread name, from the
   *     daemon's metrics when the sweep scrapes them (empty otherwise); not CPU, so not in {@link
   *     #totalCpu}
   * @param contextSwitchesPerSecond the process's voluntary + involuntary context switches per
   *     second over the interval; NaN where unobserved
   */
  public record Sample(
      double seconds,
      Map<String, Double> cpuByThread,
      double rssMiB,
      Map<String, Double> reactorUtilization,
      Double contextSwitchesPerSecond) {
    public Sample {
      // Points written before these fields existed read back without them.
      reactorUtilization = reactorUtilization == null ? Map.of() : reactorUtilization;
      contextSwitchesPerSecond =
          contextSwitchesPerSecond == null ? Double.NaN : contextSwitchesPerSecond;
    }

    public Sample(double seconds, Map<String, Double> cpuByThread, double rssMiB) {
      this(seconds, cpuByThread, rssMiB, Map.of(), Double.NaN);
    }

    public Sample(
        double seconds,
        Map<String, Double> cpuByThread,
        double rssMiB,
        Map<String, Double> reactorUtilization) {
      this(seconds, cpuByThread, rssMiB, reactorUtilization, Double.NaN);
    }

    /** The whole process's CPU, percent of one core. */
    public double totalCpu() {
      return cpuByThread.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /** Averages over a window of samples; context switches per second NaN where unobserved. */
  public record Summary(
      double cpuPercent,
      double rssMiB,
      Map<String, Double> cpuByThread,
      double contextSwitchesPerSecond) {}

  private final Path procDir;
  private final double ticksPerSecond;
  private final long pageSize;
  private final Map<Integer, Long> lastTicks = new HashMap<>();
  private final Map<Integer, Long> lastSwitches = new HashMap<>();
  private final List<Sample> samples = new ArrayList<>();
  private double lastSeconds = Double.NaN;

  /**
   * @param procDir {@code /proc/PID}
   * @param ticksPerSecond the kernel's USER_HZ ({@code getconf CLK_TCK}, 100 on Linux)
   * @param pageSize bytes per page, for statm
   */
  public ThreadCpuSampler(Path procDir, double ticksPerSecond, long pageSize) {
    this.procDir = procDir;
    this.ticksPerSecond = ticksPerSecond;
    this.pageSize = pageSize;
  }

  /** For a live process on this machine. */
  public static ThreadCpuSampler forPid(long pid) {
    return new ThreadCpuSampler(Path.of("/proc", Long.toString(pid)), 100, 4096);
  }

  /**
   * Takes one sample at {@code seconds} (a monotonic clock of the caller's); the first call only
   * sets the baseline. Returns false when the process is gone.
   */
  public boolean sample(double seconds) throws IOException {
    Map<Integer, Long> ticks = new HashMap<>();
    Map<Integer, Long> switches = new HashMap<>();
    Map<Integer, String> names = new HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(procDir.resolve("task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
          continue; // the thread exited between listing and reading
        }
        int tid = Integer.parseInt(task.getFileName().toString());
        // comm is in parentheses and may itself hold spaces or ')': split after the last ')'.
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        names.put(tid, stat.substring(open + 1, close));
        String[] fields = stat.substring(close + 2).split(" ");
        // Fields 14 and 15 of proc(5) (utime, stime) are at 11 and 12 after the comm.
        ticks.put(tid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
        long cs = contextSwitches(task);
        if (cs >= 0) {
          switches.put(tid, cs);
        }
      }
    } catch (NoSuchFileException e) {
      return false;
    }
    double rss = rssMiB();
    if (!Double.isNaN(lastSeconds) && seconds > lastSeconds) {
      double elapsed = seconds - lastSeconds;
      Map<String, Double> cpu = new TreeMap<>();
      ticks.forEach(
          (tid, t) -> {
            long delta = t - lastTicks.getOrDefault(tid, 0L);
            double percent = 100.0 * delta / ticksPerSecond / elapsed;
            cpu.merge(names.get(tid), percent, Double::sum);
          });
      double switchRate = Double.NaN;
      if (!switches.isEmpty()) {
        long delta = 0;
        for (Map.Entry<Integer, Long> e : switches.entrySet()) {
          delta += e.getValue() - lastSwitches.getOrDefault(e.getKey(), 0L);
        }
        switchRate = delta / elapsed;
      }
      samples.add(new Sample(seconds, cpu, rss, Map.of(), switchRate));
    }
    lastTicks.clear();
    lastTicks.putAll(ticks);
    lastSwitches.clear();
    lastSwitches.putAll(switches);
    lastSeconds = seconds;
    return true;
  }

  /** voluntary_ctxt_switches + nonvoluntary_ctxt_switches of one task, or -1 where unreadable. */
  private static long contextSwitches(Path task) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(task.resolve("status"), StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      return -1;
    }
    long sum = 0;
    int found = 0;
    for (String line : lines) {
      if (line.startsWith("voluntary_ctxt_switches:")
          || line.startsWith("nonvoluntary_ctxt_switches:")) {
        sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
        found++;
      }
    }
    return found == 2 ? sum : -1;
  }

  private double rssMiB() throws IOException {
    String[] statm =
        Files.readString(procDir.resolve("statm"), StandardCharsets.US_ASCII).strip().split(" ");
    return Long.parseLong(statm[1]) * pageSize / (1024.0 * 1024.0);
  }

  public List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** Averages of the samples taken after {@code fromSeconds} (e.g. the end of the ramp). */
  public Summary summarize(double fromSeconds) {
    return summarize(fromSeconds, Double.POSITIVE_INFINITY);
  }

  /**
   * Averages of the samples whose interval lies mostly within {@code [fromSeconds, toSeconds]}: a
   * load generator that starts slowly (a JVM) or lingers is not averaged in with an idle server.
   */
  public Summary summarize(double fromSeconds, double toSeconds) {
    List<Sample> window =
        samples.stream()
            .filter(s -> s.seconds() > fromSeconds && s.seconds() - 0.5 <= toSeconds)
            .toList();
    if (window.isEmpty()) {
      return new Summary(0, 0, Map.of(), Double.NaN);
    }
    Map<String, Double> perThread = new TreeMap<>();
    double cpu = 0;
    double rss = 0;
    double switches = 0;
    for (Sample s : window) {
      cpu += s.totalCpu();
      rss += s.rssMiB();
      switches += s.contextSwitchesPerSecond(); // NaN when any sample lacks them
      s.cpuByThread().forEach((name, c) -> perThread.merge(name, c / window.size(), Double::sum));
    }
    return new Summary(
        cpu / window.size(), rss / window.size(), perThread, switches / window.size());
  }
}
