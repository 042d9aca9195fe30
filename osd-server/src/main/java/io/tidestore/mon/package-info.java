/**
 * The monitor daemon ({@code tidestore mon}): the cluster map as an Apache Ratis state machine
 * ({@link io.tidestore.mon.MapStateMachine}), the monitor protocol's server with its map
 * subscriptions ({@link io.tidestore.mon.MonServer}), failure detection ({@link
 * io.tidestore.mon.FailureDetector}) and the monitor's metrics. It depends on {@code cluster.map},
 * {@code cluster.wire}, {@code cluster.pgstats} (the PG states it keeps from the OSDs' reports),
 * Ratis, and the daemon's shared {@code osd.metrics}, {@code osd.admin}, {@code osd.service}
 * (systemd notify), {@code osd.security} (certificates, grants and the listen rule) and {@code
 * cluster.tls} (TLS on its links); never on {@code cli}, and no {@code osd} package depends on it.
 */
package io.tidestore.mon;
