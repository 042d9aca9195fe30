package io.tidestore.bench.result;

/**
 * What one sweep point measured, in the units of the seed reports' tables.
 *
 * @param iops I/Os per second (reads and writes together)
 * @param bandwidthMiBs MiB per second
 * @param totalIos I/Os completed after the ramp
 * @param clatMeanMs mean completion latency, milliseconds
 * @param clatStdevMs completion latency standard deviation, milliseconds
 * @param clatP50Ms median completion latency, milliseconds
 * @param clatP99Ms 99th percentile completion latency, milliseconds
 * @param usrCpu the load generator's user CPU, percent of one core
 * @param sysCpu the load generator's system CPU, percent of one core
 * @param runtimeMs measured run time after the ramp
 */
public record PointMetrics(
    double iops,
    double bandwidthMiBs,
    long totalIos,
    double clatMeanMs,
    double clatStdevMs,
    double clatP50Ms,
    double clatP99Ms,
    double usrCpu,
    double sysCpu,
    long runtimeMs) {}
