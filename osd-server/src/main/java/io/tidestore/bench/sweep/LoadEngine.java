package io.tidestore.bench.sweep;

import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;

/** Runs one sweep point's job file and leaves fio-format JSON behind: fio, or tidestore bench. */
public interface LoadEngine {
  /**
   * Runs {@code jobFile}, JSON to {@code jsonOut}, pinned to {@code cpus} when not empty; throws
   * with the engine's own error output when it fails.
   */
  void run(Path jobFile, Path jsonOut, BitSet cpus) throws IOException, InterruptedException;

  /** The engine's version and how it runs, for run.json and the report. */
  String describe() throws IOException, InterruptedException;
}
