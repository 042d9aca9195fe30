package io.tidestore.osd.protocol;

/**
 * What STAT returns.
 *
 * @param size object size in bytes
 * @param mtimeNanos last modification, nanoseconds since the epoch
 */
public record ObjectStat(long size, long mtimeNanos) {}
