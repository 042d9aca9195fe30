/**
 * Durable-write benchmarks of the I/O layer: io_uring in its write shapes against a FileChannel
 * peer on the same file, run in alternating rounds ({@code DurableWriteRun}).
 *
 * <p>Depends on store-core's {@code io}, {@code io.backend} and {@code memory}.
 */
package io.tidestore.bench.io;
