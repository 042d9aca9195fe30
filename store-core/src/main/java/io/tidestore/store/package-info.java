/**
 * Tidestore's storage engine, without networking. This root package holds only the data directory's
 * lock ({@link io.tidestore.store.DataDirLock}), which the engine takes while a store is open.
 *
 * <p>Layers, each depending only on those below it: {@code owner} (who may call a single-owner
 * object: one thread, or the holder of a lock), {@code nativeio} (libc calls), {@code memory} (the
 * daemon-wide memory budget), {@code io} and {@code io.uring} (the asynchronous I/O queue and its
 * backends), {@code api} (the contract), {@code record}, {@code segment}, {@code index}, {@code
 * checkpoint} and {@code journal} (the log-structured format and its parts), {@code shard} (a
 * mounted shard), {@code engine} (opening, formatting and checking stores), and {@code cache} (the
 * extent cache, which plugs in through {@code api.ExtentCacheHook}). Code outside store-core uses
 * {@code api}, {@code engine}, {@code io}, {@code cache} and {@code memory}; the rest is internal.
 */
package io.tidestore.store;
