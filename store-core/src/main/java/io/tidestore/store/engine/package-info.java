/**
 * The store engine's entry points: opening a store in a data directory ({@link
 * io.tidestore.store.engine.LogStore}, which implements {@code api.ObjectStore} and mounts its
 * shards), formatting one ({@link io.tidestore.store.engine.StoreFormat}: geometry, crash-safe
 * mkfs) and checking one offline ({@link io.tidestore.store.engine.Fsck}).
 *
 * <p>Depends on {@code shard} and the layers below it; nothing in store-core depends on it.
 */
package io.tidestore.store.engine;
