package io.tidestore.bench.sweep;

import io.tidestore.bench.result.PointMetrics;
import io.tidestore.bench.result.ThreadCpuSampler;
import java.util.List;
import java.util.Map;

/**
 * One sweep point as written to {@code points/WORKLOAD-qdN.json}, and read back by {@code compare}.
 *
 * @param workload the workload's name
 * @param rw fio's rw value
 * @param blockSize bytes per I/O
 * @param iodepth the point's iodepth
 * @param metrics fio's figures
 * @param serverCpuPercent the server's CPU after the ramp, percent of one core (NaN if unobserved)
 * @param serverRssMiB the server's RSS after the ramp (NaN if unobserved)
 * @param serverCpuByThread per thread name, percent of one core
 * @param samples the server samples of the whole point, ramp included, time since sweep start
 * @param serverContextSwitchesPerOp the server's context switches (voluntary + involuntary, all
 *     threads) per completed I/O after the ramp; NaN if unobserved (and in points written before)
 */
record PointRecord(
    String workload,
    String rw,
    long blockSize,
    int iodepth,
    PointMetrics metrics,
    double serverCpuPercent,
    double serverRssMiB,
    Map<String, Double> serverCpuByThread,
    List<ThreadCpuSampler.Sample> samples,
    Double serverContextSwitchesPerOp) {
  PointRecord {
    serverContextSwitchesPerOp =
        serverContextSwitchesPerOp == null ? Double.NaN : serverContextSwitchesPerOp;
  }

  /** The server's CPU per completed I/O in microseconds; NaN if unobserved. */
  double serverCpuMicrosPerOp() {
    return metrics.iops() > 0 ? serverCpuPercent / 100.0 / metrics.iops() * 1e6 : Double.NaN;
  }
}
