/**
 * The cost of recording an operation's latency on the hot path (the daemon's recorded histogram),
 * against a Micrometer timer.
 *
 * <p>Depends on osd-server's {@code osd.metrics}.
 */
package io.tidestore.bench.metrics;
