/**
 * Extent cache benchmarks and hit-ratio harnesses, each with its peer in the same run (Caffeine,
 * chronicle-bytes and plain MemorySegment for off-heap access).
 *
 * <p>Depends on store-core's {@code cache} and {@code cache.sim}.
 */
package io.tidestore.bench.cache;
