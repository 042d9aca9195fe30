package io.tidestore.bench.job;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds a workload by name: a path to a job file, or the name of a seed workload shipped in
 * conf/workloads (and inside the jar under {@code workloads/}).
 */
public final class Workloads {
  /** The seeds' four classic workloads, in their reports' order. */
  public static final List<String> SEED_CLASSIC =
      List.of("randread4k", "randwrite4k", "seqread64k", "seqwrite64k");

  private Workloads() {}

  /** The single job of workload {@code nameOrPath}; throws naming what was looked for. */
  public static FioJob load(String nameOrPath) throws IOException {
    Path path = Path.of(nameOrPath);
    List<FioJob> jobs;
    if (Files.isRegularFile(path)) {
      jobs = FioJobFile.read(path);
    } else {
      String resource = "/workloads/" + nameOrPath + ".fio";
      try (InputStream in = Workloads.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IOException(
              "no workload '"
                  + nameOrPath
                  + "': neither a job file nor a shipped workload (conf/workloads: "
                  + String.join(", ", SEED_CLASSIC)
                  + ", and the -zipf/-zoned/-normal variants of randread4k/randwrite4k)");
        }
        jobs =
            FioJobFile.parse(
                nameOrPath + ".fio", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    if (jobs.size() != 1) {
      throw new IOException(
          "workload '" + nameOrPath + "' has " + jobs.size() + " jobs; a sweep workload has one");
    }
    return jobs.getFirst();
  }
}
