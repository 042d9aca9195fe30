/**
 * Measured benchmark results: fio JSON, per-point metrics and thread CPU samples. It depends on no
 * other tidestore package.
 */
package io.tidestore.bench.result;
