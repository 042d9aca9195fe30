/**
 * The store behind the ops layer: mounting every shard on its owner ({@link
 * io.tidestore.osd.store.MountedShards}: a reactor's, or in the classic engine a placement group's
 * on the sharded op queue, both seen as a {@code ShardOwner}), routing each op there, the {@code
 * ObjectOps} and {@code PieceIo} adapters, and the administration of the mounted shards (cache
 * policy, stats). It depends on {@code osd.ops}, {@code osd.shard}, {@code osd.reactor}, {@code
 * osd.classic} (the classic engine's threads and PG locks) and store-core; only the daemon depends
 * on it.
 */
package io.tidestore.osd.store;
