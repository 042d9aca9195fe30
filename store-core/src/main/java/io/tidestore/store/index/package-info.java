/**
 * A shard's object index: every object's applied state (existence, size, one packed entry per 4 KiB
 * block with its location and crc32c, extended attributes), by key for lookups and listing and by
 * id for replay and the cleaner, charged to the memory budget; listing by name and by hash range
 * (the cluster's placement hash order, selected by a scan). It holds only what durable, applied
 * records say; the write path's view of mutations in flight lives in {@code shard}.
 *
 * <p>Depends on {@code api} (keys, the placement hash and ranges) and {@code memory} (the budget).
 */
package io.tidestore.store.index;
