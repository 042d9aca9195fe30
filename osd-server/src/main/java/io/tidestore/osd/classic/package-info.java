/**
 * The classic engine's Netty side: its I/O loops as the threads that own the rings its op workers
 * hand operations to ({@code store.io.handoff}).
 *
 * <p>Depends on {@code osd.reactor} (binding a ring's eventfd to a loop) and store-core's I/O
 * layer.
 */
package io.tidestore.osd.classic;
