/**
 * The store's contract, and nothing else: an open store ({@link
 * io.tidestore.store.api.ObjectStore}) and its shards ({@link io.tidestore.store.api.ShardStore},
 * with the threading, visibility and buffer-ownership rules in its Javadoc), object keys and
 * placement, settings ({@link io.tidestore.store.api.StoreConfig}), results, counters and the one
 * error type ({@link io.tidestore.store.api.StoreException} with its codes), the block size and the
 * size limits.
 *
 * <p>Depends only on {@code io} (a shard is mounted on an {@code IoQueue}), {@code owner} (who may
 * call a shard) and {@code memory} (the budget a store charges). Implementations live elsewhere
 * ({@code engine}, {@code shard}); this package never builds one. New capabilities are added here
 * as interfaces and types, and implemented in {@code shard}: listing by hash range (the cluster's
 * placement hash, its order and a PG's range: {@link io.tidestore.store.api.PlacementHash}, {@link
 * io.tidestore.store.api.HashRange}) is; the cluster's multi-op transactions are next.
 */
package io.tidestore.store.api;
