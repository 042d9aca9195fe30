package io.tidestore.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's user and system CPU time from {@code /proc/self/stat}, for fio's {@code usr_cpu}
 * and {@code sys_cpu}: the load generator's own cost, which a sweep must not count as the server's.
 *
 * @param userTicks utime, in clock ticks (USER_HZ, 100 per second on Linux)
 * @param systemTicks stime, in clock ticks
 */
record ProcessCpu(long userTicks, long systemTicks) {
  static final double TICKS_PER_SECOND = 100;

  static ProcessCpu now() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
    // The command name may hold spaces and parentheses; fields resume after the last ')'.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new ProcessCpu(Long.parseLong(fields[11]), Long.parseLong(fields[12]));
  }

  /** User CPU since {@code before} over {@code seconds}, in percent of one core. */
  double userPercentSince(ProcessCpu before, double seconds) {
    return percent(userTicks - before.userTicks, seconds);
  }

  /** System CPU since {@code before} over {@code seconds}, in percent of one core. */
  double systemPercentSince(ProcessCpu before, double seconds) {
    return percent(systemTicks - before.systemTicks, seconds);
  }

  private static double percent(long ticks, double seconds) {
    return seconds <= 0 ? 0 : 100.0 * ticks / TICKS_PER_SECOND / seconds;
  }
}
