/**
 * A mounted shard, the log-structured {@code ShardStore}: mount (checkpoint, replay, new epoch),
 * the write path (staging, read-modify-write, waits for space), the read path (verified reads),
 * in-order application of durable records, checkpoints, the cleaner and the offline check of one
 * shard. {@link io.tidestore.store.shard.LogShard} is the facade; its parts share a {@code
 * ShardContext} and see one another only through narrow references. Everything here runs on the
 * shard's owner thread (or, in the classic engine, by whichever thread holds the shard's lock: the
 * rule is an {@code owner.Owner}).
 *
 * <p>Depends on {@code journal}, {@code checkpoint}, {@code index}, {@code segment}, {@code
 * record}, {@code io}, {@code memory}, {@code owner} and {@code api}; only {@code engine} uses it.
 */
package io.tidestore.store.shard;
