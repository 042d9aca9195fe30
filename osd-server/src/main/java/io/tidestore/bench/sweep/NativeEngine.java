package io.tidestore.bench.sweep;

import io.tidestore.bench.orchestrate.ChildCommand;
import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * The sweep's native engine: {@code tidestore bench} in a child JVM per point (taskset-pinned like
 * fio), so its CPU is its own process's and never the server's, and a point's JIT warm-up and
 * garbage stay out of the next point.
 */
public final class NativeEngine implements LoadEngine {
  private final String osd;
  private final String version;

  /**
   * @param osd the OSD's object protocol address, HOST:PORT
   * @param version Tidestore's version, for the report
   */
  public NativeEngine(String osd, String version) {
    this.osd = osd;
    this.version = version;
  }

  @Override
  public void run(Path jobFile, Path jsonOut, BitSet cpus)
      throws IOException, InterruptedException {
    List<String> taskset =
        cpus.isEmpty() ? List.of() : List.of("taskset", "-c", CpuList.format(cpus));
    ChildCommand.run(
        taskset,
        List.of(
            "bench",
            "--osd",
            osd,
            "--output-format",
            "json",
            "--output",
            jsonOut.toString(),
            jobFile.toString()),
        jsonOut.resolveSibling(jsonOut.getFileName() + ".log"));
  }

  @Override
  public String describe() {
    return "tidestore bench "
        + version
        + " (native shard-aware client over the image layer, a child JVM per point, OSD "
        + osd
        + ")";
  }
}
