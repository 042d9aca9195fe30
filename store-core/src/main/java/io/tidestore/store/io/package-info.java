/**
 * The store's block I/O contract, and its portable backend.
 *
 * <p>Owns: the contract the store codes against and every backend keeps ({@link
 * io.tidestore.store.io.IoQueue}, {@link io.tidestore.store.io.IoFile}, {@link
 * io.tidestore.store.io.IoCompletion}, {@link io.tidestore.store.io.IoQueueConfig}, {@link
 * io.tidestore.store.io.IoBackend}); how operations fail ({@link
 * io.tidestore.store.io.IoOpException}, {@link io.tidestore.store.io.IoQueueFullException}, {@link
 * io.tidestore.store.io.Errno}); O_DIRECT's rules and buffers ({@link
 * io.tidestore.store.io.DirectIo}, {@link io.tidestore.store.io.AlignedBufferPool}); what every
 * backend shares ({@link io.tidestore.store.io.AbstractIoQueue}, {@link
 * io.tidestore.store.io.AbstractIoFile}: the owner thread, the life cycle, the per-operation
 * checks, the in-flight counts; {@link io.tidestore.store.io.CompletionFailures}: a batch of
 * completions delivered whole though one throws); and the FileChannel backend ({@link
 * io.tidestore.store.io.FileChannelQueue} with its package-private file and worker slots), the
 * fallback where io_uring is unavailable.
 *
 * <p>May depend on: the JDK and {@code store.owner} (the owner rule every queue checks). Everything
 * else in the I/O layer sits above this package and depends on it, never the other way: {@code
 * io.uring} (the io_uring backend), {@code io.backend} (which picks a backend), {@code io.handoff}
 * (a queue whose ring another thread owns).
 */
package io.tidestore.store.io;
