/**
 * An OSD's membership in a cluster ({@code tidestore osd --mon}): its identity in the data
 * directory ({@link io.tidestore.osd.cluster.OsdIdentity}), registration with the monitors,
 * heartbeats, following the map, and the metrics of all three ({@link
 * io.tidestore.osd.cluster.OsdMembership}). Depends on {@code cluster.client}, {@code cluster.map},
 * {@code cluster.wire} (the links its settings carry, plaintext or TLS) and Micrometer; the daemon
 * ({@code osd}) wires it in, nothing else in {@code osd.*} uses it.
 */
package io.tidestore.osd.cluster;
