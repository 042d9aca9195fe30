/**
 * Measurements of the whole store through its API (mount time, index bytes per extent, the cleaner
 * at 90% full), as programs run on demand rather than tests, and the JMH benchmark of one shard's
 * operations end to end ({@code ShardOpBenchmark}, allocations per operation with {@code -prof
 * gc}).
 *
 * <p>Depends on store-core's {@code api}, {@code engine}, {@code io}, and {@code cache} and {@code
 * memory} for the extent cache a daemon's shard reads through.
 */
package io.tidestore.bench.store;
