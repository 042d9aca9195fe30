package io.tidestore.bench.sweep;

import io.tidestore.bench.job.FioJob;
import java.net.URI;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything a sweep runs: each workload at each iodepth, against a target, with the server
 * observed from outside.
 *
 * @param label the run's name in reports and comparisons
 * @param workloads the base jobs (one per workload), as read from their job files
 * @param iodepths the iodepths of the sweep, ascending
 * @param runtimeSeconds measured seconds per point
 * @param rampSeconds warm-up seconds per point, excluded from fio's figures and the CPU sample
 * @param images images (fio job sections) per point
 * @param jobsPerImage fio numjobs per image
 * @param target where fio sends I/O
 * @param prefill write every image sequentially once before the first read workload
 * @param hideLatencyMs points with a mean latency above this are left out of tables and charts
 * @param stopLatencyMs a workload's sweep stops after a point with a mean latency above this
 * @param loadCpus CPUs fio is pinned to (taskset), or empty to leave it unpinned
 * @param pinningNote how the load generator was placed and why, for the report
 * @param serverPid the server process to sample, if known
 * @param serverMetrics the server's {@code /metrics}, scraped with each sample for its reactors'
 *     utilization, if given
 * @param outDir the run directory
 */
public record SweepPlan(
    String label,
    List<FioJob> workloads,
    List<Integer> iodepths,
    double runtimeSeconds,
    double rampSeconds,
    int images,
    int jobsPerImage,
    FioTarget target,
    boolean prefill,
    double hideLatencyMs,
    double stopLatencyMs,
    BitSet loadCpus,
    String pinningNote,
    OptionalLong serverPid,
    Optional<URI> serverMetrics,
    Path outDir) {

  public SweepPlan {
    workloads = List.copyOf(workloads);
    iodepths = List.copyOf(iodepths);
    loadCpus = (BitSet) loadCpus.clone();
  }

  @Override
  public BitSet loadCpus() {
    return (BitSet) loadCpus.clone();
  }

  /** Number of points the sweep may run. */
  public int points() {
    return workloads.size() * iodepths.size();
  }
}
