/**
 * The monitor protocol (docs/cluster.md "Monitor protocol"): length-prefixed, versioned frames that
 * each carry the sender's map epoch ({@link io.tidestore.cluster.wire.MonFrame}), the payloads of
 * its messages ({@link io.tidestore.cluster.wire.MonMessages}), and how links are opened and
 * admitted ({@link io.tidestore.cluster.wire.LinkSecurity}: plaintext here, TLS in {@code
 * cluster.tls}). Shared by the monitor daemon and its clients; depends on {@code cluster.map},
 * {@code cluster.pgstats} (PG reports and summaries) and the JDK only.
 */
package io.tidestore.cluster.wire;
