/**
 * Picks the I/O backend: {@link io.tidestore.store.io.backend.IoQueues#create} builds an io_uring
 * queue where the kernel and the JVM allow it, else the FileChannel fallback, and says why.
 *
 * <p>May depend on: {@code store.io}, {@code store.io.uring} and {@code store.nativeio}. It sits
 * above both backends, which is what keeps them from depending on each other; only {@code
 * io.handoff} and the store's users sit above it.
 */
package io.tidestore.store.io.backend;
