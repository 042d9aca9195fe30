/**
 * The classic engine's I/O hand-off: {@link io.tidestore.store.io.handoff.IoThreadQueue}, an {@link
 * io.tidestore.store.io.IoQueue} owned by one thread whose ring (from {@code io.backend}) belongs
 * to an {@link io.tidestore.store.io.handoff.IoThread}, with operations and completions crossing
 * between the two in reused slots over bounded lock-free queues.
 *
 * <p>May depend on: {@code store.io}, {@code store.io.backend} and {@code store.owner}. No Netty:
 * the daemon's event loop reaches this package only as an {@code IoThread} (osd-server's {@code
 * EventLoopIoThread}).
 */
package io.tidestore.store.io.handoff;
