/**
 * The object protocol v1 gateway: framing, request bodies, the shard map, the listeners and the
 * connection handler, which serves {@link io.tidestore.osd.ops.ObjectOps}, checks every op against
 * the client's grants ({@link io.tidestore.osd.protocol.OpAccess}) and maps op failures to reply
 * statuses in one place ({@link io.tidestore.osd.protocol.OpsStatus}). It depends on {@code
 * osd.ops}, {@code osd.net}, {@code osd.metrics}, {@code osd.reactor} and {@code osd.security}; the
 * daemon and the client depend on it.
 */
package io.tidestore.osd.protocol;
