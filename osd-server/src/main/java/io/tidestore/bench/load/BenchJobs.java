package io.tidestore.bench.load;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.job.FioJobFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The jobs of one {@code tidestore bench} invocation: a job file's jobs with command-line options
 * applied over each (so one file serves many points), or a single job made of the options alone.
 * Options are fio's names and go through {@link FioJobFile}'s checks either way.
 */
public final class BenchJobs {
  private BenchJobs() {}

  /**
   * @param jobFile a fio job file, or null
   * @param overrides fio option name to value, from the command line
   */
  public static List<FioJob> resolve(Path jobFile, Map<String, String> overrides)
      throws IOException {
    for (String key : overrides.keySet()) {
      if (!FioJobFile.supported().contains(key)) {
        throw new IllegalArgumentException(
            "option '" + key + "' is not supported by tidestore bench");
      }
    }
    if (jobFile == null) {
      return List.of(FioJobFile.build("command line", 0, "bench", overrides));
    }
    List<FioJob> jobs = new ArrayList<>();
    for (FioJob job : FioJobFile.read(jobFile)) {
      if (overrides.isEmpty()) {
        jobs.add(job);
        continue;
      }
      Map<String, String> merged = new LinkedHashMap<>(job.options());
      merged.putAll(overrides);
      jobs.add(FioJobFile.build(jobFile + " with command-line options", 0, job.name(), merged));
    }
    return jobs;
  }
}
