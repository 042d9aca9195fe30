package io.tidestore.osd.cpu;

import io.tidestore.store.nativeio.Libc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Entry point to CPU affinity: the native pinner when java.lang.foreign may call libc, and the
 * process's allowed CPUs either way (from /proc when native access is missing). Thread-safe.
 */
public final class Affinity {
  private static final Logger LOG = Logger.getLogger(Affinity.class.getName());

  private Affinity() {}

  /** The pinner, or empty (with one log line naming why) when native access is unavailable. */
  public static Optional<ThreadPinner> pinner() {
    Optional<Libc> libc = Libc.get();
    if (libc.isEmpty()) {
      LOG.warning(
          "CPU pinning unavailable, reactors run unpinned: " + Libc.unavailableReason().orElse(""));
      return Optional.empty();
    }
    try {
      return Optional.of(new NativeThreadPinner(libc.get()));
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.WARNING, "CPU pinning unavailable, reactors run unpinned", e);
      return Optional.empty();
    }
  }

  /** The CPUs this process may use: sched_getaffinity when possible, else /proc/self/status. */
  public static BitSet processCpus(Optional<ThreadPinner> pinner) throws IOException {
    if (pinner.isPresent()) {
      return pinner.get().processCpus();
    }
    return allowedListFromStatus(Path.of("/proc/self/status"));
  }

  /** Parses {@code Cpus_allowed_list} out of a /proc/PID[/task/TID]/status file. */
  public static BitSet allowedListFromStatus(Path status) throws IOException {
    for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
      if (line.startsWith("Cpus_allowed_list:")) {
        return CpuList.parse(line.substring("Cpus_allowed_list:".length()));
      }
    }
    throw new IOException(status + " has no Cpus_allowed_list line");
  }
}
