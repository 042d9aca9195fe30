/**
 * Benchmark job descriptions: fio job files, sizes, random distributions and the standard
 * workloads. Pure data and parsing; it depends on no other tidestore package.
 */
package io.tidestore.bench.job;
