package io.tidestore.bench.sweep;

import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The CPUs a process may use and those its pinned threads are bound to, read from /proc, so the
 * load generator can be kept off a server's reactors. CPU lists use {@link CpuList}'s syntax.
 */
public final class ProcAffinity {
  private ProcAffinity() {}

  /** The CPUs this process may run on ({@code Cpus_allowed_list} of /proc/self/status). */
  public static BitSet allowed(Path procDir) throws IOException {
    return CpuList.parse(field(procDir.resolve("status"), "Cpus_allowed_list"));
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
            cpus.or(CpuList.parse(field(task.resolve("status"), "Cpus_allowed_list")));
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
