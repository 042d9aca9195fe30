package io.tidestore.bench.sweep;

import io.tidestore.bench.job.FioJob;
import io.tidestore.osd.cpu.CpuList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the real fio binary: writes a job file per point (a job file's options win over fio's
 * command line, so everything goes into the file), optionally under {@code taskset}, and keeps
 * fio's JSON output next to it.
 */
public final class FioRunner implements LoadEngine {
  /** Options that name a target; they come from the {@link FioTarget}, never the workload. */
  static final Set<String> TARGET_KEYS =
      Set.of("ioengine", "uri", "filename", "rbdname", "pool", "clientname");

  /** Options the sweep sets per point. */
  static final Set<String> POINT_KEYS =
      Set.of("iodepth", "numjobs", "runtime", "ramp_time", "time_based", "group_reporting");

  private final String fio;

  public FioRunner(String fio) {
    this.fio = fio;
  }

  /** The job file for one point: the workload's options, the point's, one section per image. */
  public static String pointJobFile(
      FioJob workload, int iodepth, SweepPlan plan, Map<String, String> extra) {
    StringBuilder sb = new StringBuilder();
    sb.append("# tidestore sweep: ")
        .append(workload.name())
        .append(" iodepth=")
        .append(iodepth)
        .append("\n[global]\n");
    Map<String, String> global = new LinkedHashMap<>();
    workload
        .options()
        .forEach(
            (k, v) -> {
              if (!TARGET_KEYS.contains(k) && !POINT_KEYS.contains(k)) {
                global.put(k, v);
              }
            });
    global.put("iodepth", Integer.toString(iodepth));
    global.put("numjobs", Integer.toString(plan.jobsPerImage()));
    global.put("time_based", "1");
    global.put("runtime", seconds(plan.runtimeSeconds()));
    global.put("ramp_time", seconds(plan.rampSeconds()));
    global.put("group_reporting", "1");
    global.putAll(extra);
    append(sb, global);
    for (int image = 0; image < plan.images(); image++) {
      sb.append("\n[").append(workload.name()).append("-image").append(image).append("]\n");
      append(sb, plan.target().forImage(image));
    }
    return sb.toString();
  }

  /** A job that writes every image once, sequentially in 64 KiB blocks (the seeds' prefill). */
  public static String prefillJobFile(SweepPlan plan) {
    StringBuilder sb = new StringBuilder("# tidestore sweep: prefill\n[global]\n");
    append(sb, Map.of("rw", "write", "bs", "64k", "iodepth", "16", "numjobs", "1"));
    sb.append("group_reporting=1\n");
    for (int image = 0; image < plan.images(); image++) {
      sb.append("\n[prefill-image").append(image).append("]\n");
      append(sb, plan.target().forImage(image));
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, Map<String, String> options) {
    options.forEach(
        (k, v) -> {
          sb.append(k);
          if (!v.isEmpty()) {
            sb.append('=').append(v);
          }
          sb.append('\n');
        });
  }

  private static String seconds(double s) {
    return s == Math.rint(s) ? Long.toString((long) s) : Math.round(s * 1000) + "ms";
  }

  /**
   * Runs fio on {@code jobFile}, JSON to {@code jsonOut}; under {@code taskset -c CPUS} when {@code
   * cpus} is not empty. Throws with fio's own error output when it fails.
   */
  @Override
  public void run(Path jobFile, Path jsonOut, BitSet cpus)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if (!cpus.isEmpty()) {
      command.add("taskset");
      command.add("-c");
      command.add(CpuList.format(cpus));
    }
    command.add(fio);
    command.add("--output-format=json");
    command.add("--output=" + jsonOut);
    command.add(jobFile.toString());
    Path log = jsonOut.resolveSibling(jsonOut.getFileName() + ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int code = process.waitFor();
    if (code != 0) {
      String output = Files.readString(log, StandardCharsets.UTF_8).strip();
      throw new IOException(
          "fio failed (exit "
              + code
              + ") on "
              + jobFile
              + (output.isEmpty() ? "" : ":\n" + output));
    }
  }

  /** fio's own version line; a clear error when fio cannot be run. */
  @Override
  public String describe() throws IOException, InterruptedException {
    try {
      Process p = new ProcessBuilder(fio, "--version").redirectErrorStream(true).start();
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      p.waitFor();
      return v;
    } catch (IOException e) {
      throw new IOException(
          "cannot run fio ('" + fio + "'): " + e.getMessage() + "; apt-get install fio", e);
    }
  }
}
