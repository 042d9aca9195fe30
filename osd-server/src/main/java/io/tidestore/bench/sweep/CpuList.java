package io.tidestore.bench.sweep;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * Linux CPU lists ({@code 0-3,8,10-11}, as taskset and /proc use them) and the CPUs a server's
 * threads are pinned to, so the load generator can be kept off them.
 */
public final class CpuList {
  private CpuList() {}

  /** Parses a CPU list; throws naming the bad part. */
  public static BitSet parse(String text) {
    BitSet cpus = new BitSet();
    for (String part : text.strip().split(",")) {
      if (part.isEmpty()) {
        continue;
      }
      try {
        int dash = part.indexOf('-');
        if (dash < 0) {
          cpus.set(Integer.parseInt(part.strip()));
        } else {
          int from = Integer.parseInt(part.substring(0, dash).strip());
          int to = Integer.parseInt(part.substring(dash + 1).strip());
          if (to < from) {
            throw new IllegalArgumentException("CPU range '" + part + "' runs backwards");
          }
          cpus.set(from, to + 1);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + part + "' is not a CPU or CPU range", e);
      }
    }
    return cpus;
  }

  /** Formats as a CPU list, ranges collapsed. */
  public static String format(BitSet cpus) {
    StringBuilder sb = new StringBuilder();
    int cpu = cpus.nextSetBit(0);
    while (cpu >= 0) {
      int end = cpus.nextClearBit(cpu) - 1;
      sb.append(sb.isEmpty() ? "" : ",").append(cpu);
      if (end > cpu) {
        sb.append('-').append(end);
      }
      cpu = cpus.nextSetBit(end + 1);
    }
    return sb.toString();
  }

  /** The CPUs this process may run on ({@code Cpus_allowed_list} of /proc/self/status). */
  public static BitSet allowed(Path procDir) throws IOException {
    return parse(field(procDir.resolve("status"), "Cpus_allowed_list"));
  }

  /**
   * The CPUs that the threads named {@code threadPrefix}* of process {@code procDir} are pinned to:
   * the union of their affinity masks. Empty when no such thread exists.
   */
  public static BitSet pinnedThreads(Path procDir, String threadPrefix) throws IOException {
    BitSet cpus = new BitSet();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(procDir.resolve("task"))) {
      for (Path task : tasks) {
        try {
          String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).strip();
          if (comm.startsWith(threadPrefix)) {
            cpus.or(parse(field(task.resolve("status"), "Cpus_allowed_list")));
          }
        } catch (NoSuchFileException e) {
          // thread exited while we looked
        }
      }
    }
    return cpus;
  }

  private static String field(Path status, String name) throws IOException {
    for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    throw new IOException(status + " has no " + name);
  }
}
