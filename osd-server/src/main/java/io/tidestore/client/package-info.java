/**
 * The object protocol v1 client: one pipelined connection ({@link
 * io.tidestore.client.ObjectClient}), plaintext or TLS, a shard-aware set of them, and {@link
 * io.tidestore.client.ClientObjectOps}, which serves the ops layer over the wire; and the cluster
 * client ({@link io.tidestore.client.ClusterClient}: protocol v2 to each PG's primary, following
 * the monitors' map). It depends on {@code osd.protocol} (frames, statuses), {@code osd.ops} (the
 * ops and their results), {@code osd.security} (TLS failures in words) and {@code cluster.*} (the
 * map, placement, the monitors' client and PG states), never on the daemon or the CLI.
 */
package io.tidestore.client;
