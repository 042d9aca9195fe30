/**
 * The ops layer: {@link io.tidestore.osd.ops.ObjectOps}, the object operations every gateway and
 * the images call, its fast path for image pieces, its one error type ({@link
 * io.tidestore.osd.ops.ObjectOpsException}, translated from store failures here and only here), how
 * names map to store keys, and its result types. It depends only on the store API; the gateways,
 * the images, the shard routing and the client depend on it.
 */
package io.tidestore.osd.ops;
