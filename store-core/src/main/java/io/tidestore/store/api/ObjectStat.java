package io.tidestore.store.api;

/**
 * What {@link ShardStore#stat} reports: the object's shard-local numeric id (the extent cache's key
 * together with a block index), its size in bytes, and how many 4 KiB blocks are allocated (holes
 * are not). Immutable.
 */
public record ObjectStat(ObjectKey key, long objectId, long size, long allocatedBlocks) {}
