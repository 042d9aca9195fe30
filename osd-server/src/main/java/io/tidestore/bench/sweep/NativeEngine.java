package io.tidestore.bench.sweep;

import io.tidestore.bench.orchestrate.SelfLauncher;
import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
    List<String> command = new ArrayList<>();
    if (!cpus.isEmpty()) {
      command.add("taskset");
      command.add("-c");
      command.add(CpuList.format(cpus));
    }
    command.addAll(SelfLauncher.command());
    command.add("bench");
    command.add("--osd");
    command.add(osd);
    command.add("--output-format");
    command.add("json");
    command.add("--output");
    command.add(jsonOut.toString());
    command.add(jobFile.toString());
    Path log = jsonOut.resolveSibling(jsonOut.getFileName() + ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int code;
    try {
      code = process.waitFor();
    } finally {
      process.destroy();
    }
    if (code != 0) {
      throw new IOException(
          "tidestore bench failed (exit "
              + code
              + ") on "
              + jobFile
              + ":\n"
              + Files.readString(log, StandardCharsets.UTF_8).strip());
    }
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
