package io.tidestore.osd.ops;

/**
 * What {@link ObjectOps#stat} reports, as every gateway shows it: the size and the modification
 * time, without the store's shard-local ids ({@link io.tidestore.store.api.ObjectStat}), which mean
 * nothing outside the shard. Immutable.
 *
 * @param size object size in bytes
 * @param mtimeNanos last modification, nanoseconds since the epoch; 0 when unknown (the store keeps
 *     none)
 */
public record ObjectInfo(long size, long mtimeNanos) {}
