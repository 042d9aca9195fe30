/**
 * The object protocol v1 client: one pipelined connection ({@link
 * io.tidestore.client.ObjectClient}), plaintext or TLS, a shard-aware set of them, and {@link
 * io.tidestore.client.ClientObjectOps}, which serves the ops layer over the wire. It depends on
 * {@code osd.protocol} (frames, statuses), {@code osd.ops} (the ops and their results) and {@code
 * osd.security} (TLS failures in words), never on the daemon or the CLI.
 */
package io.tidestore.client;
