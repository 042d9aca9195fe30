package io.tidestore.bench.sweep;

import io.tidestore.bench.orchestrate.ChildCommand;
import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
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
  private final Path tlsCertificates;

  /**
   * @param osd the OSD's object protocol address, HOST:PORT
   * @param version Tidestore's version, for the report
   * @param tlsCertificates the client's certificate directory (bench --tls-certificates), or null
   *     for plaintext
   */
  public NativeEngine(String osd, String version, Path tlsCertificates) {
    this.osd = osd;
    this.version = version;
    this.tlsCertificates = tlsCertificates;
  }

  @Override
  public void run(Path jobFile, Path jsonOut, BitSet cpus)
      throws IOException, InterruptedException {
    List<String> taskset =
        cpus.isEmpty() ? List.of() : List.of("taskset", "-c", CpuList.format(cpus));
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench", "--osd", osd, "--output-format", "json", "--output", jsonOut.toString()));
    if (tlsCertificates != null) {
      args.addAll(List.of("--tls-certificates", tlsCertificates.toString()));
    }
    args.add(jobFile.toString());
    ChildCommand.run(taskset, args, jsonOut.resolveSibling(jsonOut.getFileName() + ".log"));
  }

  @Override
  public String describe() {
    return "tidestore bench "
        + version
        + " (native shard-aware client over the image layer, a child JVM per point, OSD "
        + osd
        + (tlsCertificates != null ? " over TLS" : "")
        + ")";
  }
}
