/**
 * Benchmark sweeps: plans over parameters, running each point with fio or the native engine, and
 * the run and comparison reports. It depends on the other {@code bench.*} packages and {@code
 * osd.cpu}; the daemon never depends on it.
 */
package io.tidestore.bench.sweep;
