/**
 * The store behind the ops layer: mounting every shard on its owning reactor ({@link
 * io.tidestore.osd.store.MountedShards}), routing each op there, the {@code ObjectOps} and {@code
 * PieceIo} adapters, and the administration of the mounted shards (cache policy, stats). It depends
 * on {@code osd.ops}, {@code osd.shard}, {@code osd.reactor} and store-core; only the daemon
 * depends on it.
 */
package io.tidestore.osd.store;
