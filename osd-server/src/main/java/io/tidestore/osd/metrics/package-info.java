/**
 * The daemon's metrics: the registry, latency histograms by op, and the meters of the store, the
 * caches, memory, reactors and security refusals, exported as Prometheus text and JSON. It reads
 * what it measures from {@code osd.reactor}, {@code osd.net} (the inbound budget), {@code
 * osd.security} (the refusal counters) and store-core; the gateways depend on it to record
 * latencies, it depends on none of them.
 */
package io.tidestore.osd.metrics;
