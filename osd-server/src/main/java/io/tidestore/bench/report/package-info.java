/**
 * Benchmark reports: charts and seed tables from measured points. It depends only on {@code
 * bench.result}.
 */
package io.tidestore.bench.report;
