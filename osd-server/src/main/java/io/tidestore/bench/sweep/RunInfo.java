package io.tidestore.bench.sweep;

import java.util.List;

/**
 * A run directory's {@code run.json}: what was run, where, how the load was placed.
 *
 * @param label the run's name
 * @param started ISO-8601 start time
 * @param workloads workload names in run order
 * @param iodepths the sweep's iodepths
 * @param runtimeSeconds measured seconds per point
 * @param rampSeconds warm-up seconds per point
 * @param images images per point
 * @param jobsPerImage fio jobs per image
 * @param target the fio target
 * @param pinning how the load generator was placed
 * @param serverPid the observed server, or 0
 * @param fioVersion the load engine: fio's own version line, or tidestore bench and how it ran
 * @param host CPUs and kernel of the machine
 * @param hideLatencyMs points with a mean latency above this are not shown
 */
public record RunInfo(
    String label,
    String started,
    List<String> workloads,
    List<Integer> iodepths,
    double runtimeSeconds,
    double rampSeconds,
    int images,
    int jobsPerImage,
    String target,
    String pinning,
    long serverPid,
    String fioVersion,
    String host,
    double hideLatencyMs) {}
