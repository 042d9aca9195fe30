package io.tidestore.osd.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's resident set size, from {@code /proc/self/status} (Linux's VmRSS): what the kernel
 * holds in RAM for the daemon, heap, off-heap budget, Netty and code together; the one figure that
 * shows a leak outside every budget. Read at scrape time only.
 */
final class ResidentMemory {
  private static final Path STATUS = Path.of("/proc/self/status");

  private ResidentMemory() {}

  /** VmRSS in bytes, or NaN where /proc is not there or says nothing of it. */
  static double bytes() {
    try {
      return parse(Files.readAllLines(STATUS));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** The VmRSS line of a /proc/PID/status text ("VmRSS: 123456 kB") in bytes, or NaN. */
  static double parse(Iterable<String> statusLines) {
    for (String line : statusLines) {
      if (line.startsWith("VmRSS:")) {
        String[] fields = line.substring("VmRSS:".length()).trim().split("\\s+");
        if (fields.length == 2 && fields[1].equals("kB")) {
          return Long.parseLong(fields[0]) * 1024.0;
        }
      }
    }
    return Double.NaN;
  }
}
