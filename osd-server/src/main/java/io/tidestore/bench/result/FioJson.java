package io.tidestore.bench.result;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads fio's {@code --output-format=json} into {@link PointMetrics}: every job and both directions
 * are combined (I/O counts, IOPS and bandwidth add up; latency mean and deviation are pooled by I/O
 * count; percentiles are those of the slower direction, since fio's JSON carries percentiles, not
 * histograms, and the slower one is the honest figure to show).
 */
public final class FioJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] DIRECTIONS = {"read", "write"};

  private FioJson() {}

  public static PointMetrics read(Path file) throws IOException {
    return parse(JSON.readTree(file.toFile()));
  }

  public static PointMetrics parse(String json) throws IOException {
    return parse(JSON.readTree(json));
  }

  static PointMetrics parse(JsonNode root) throws IOException {
    JsonNode jobs = root.path("jobs");
    if (!jobs.isArray() || jobs.isEmpty()) {
      throw new IOException("fio JSON has no jobs");
    }
    double iops = 0;
    double bwKiB = 0;
    long ios = 0;
    double sum = 0;
    double sumSquares = 0;
    long n = 0;
    double p50 = 0;
    double p99 = 0;
    double usr = 0;
    double sys = 0;
    long runtime = 0;
    for (JsonNode job : jobs) {
      if (job.path("error").asInt(0) != 0) {
        throw new IOException(
            "fio job '" + job.path("jobname").asText() + "' failed: error " + job.path("error"));
      }
      usr += job.path("usr_cpu").asDouble();
      sys += job.path("sys_cpu").asDouble();
      for (String direction : DIRECTIONS) {
        JsonNode d = job.path(direction);
        long count = d.path("total_ios").asLong();
        if (count == 0) {
          continue;
        }
        iops += d.path("iops").asDouble();
        bwKiB += d.path("bw").asDouble();
        ios += count;
        runtime = Math.max(runtime, d.path("runtime").asLong());
        JsonNode clat = d.path("clat_ns");
        long samples = clat.path("N").asLong(count);
        double mean = clat.path("mean").asDouble();
        double stdev = clat.path("stddev").asDouble();
        sum += samples * mean;
        sumSquares += samples * (stdev * stdev + mean * mean);
        n += samples;
        p50 = Math.max(p50, percentile(clat, "50.000000"));
        p99 = Math.max(p99, percentile(clat, "99.000000"));
      }
    }
    double mean = n == 0 ? 0 : sum / n;
    double variance = n == 0 ? 0 : Math.max(0, sumSquares / n - mean * mean);
    return new PointMetrics(
        iops,
        bwKiB / 1024.0,
        ios,
        mean / 1e6,
        Math.sqrt(variance) / 1e6,
        p50 / 1e6,
        p99 / 1e6,
        usr,
        sys,
        runtime);
  }

  private static double percentile(JsonNode clat, String key) {
    return clat.path("percentile").path(key).asDouble();
  }

  /**
   * The measured window in epoch milliseconds ({@code [start, end]}) when the JSON comes from
   * tidestore bench, which records it; empty for fio's own JSON.
   */
  public static Optional<long[]> measuredWindowEpochMs(Path file) throws IOException {
    JsonNode window = JSON.readTree(file.toFile()).path("window_epoch_ms");
    if (!window.has("start") || !window.has("end")) {
      return Optional.empty();
    }
    return Optional.of(new long[] {window.path("start").asLong(), window.path("end").asLong()});
  }
}
