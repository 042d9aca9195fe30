/**
 * Offline replay of block traces through a cache policy, for {@code tidestore cache-sim}: trace
 * reading (block lists, fio iolog v2/v3), fio-like generators ({@link
 * io.tidestore.store.cache.sim.BlockGenerator}), and {@link
 * io.tidestore.store.cache.sim.TraceReplay}. Nothing here runs in the daemon.
 *
 * <p>May depend on: {@code store.cache} (its policies and keys).
 */
package io.tidestore.store.cache.sim;
