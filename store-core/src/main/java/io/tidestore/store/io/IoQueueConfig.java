package io.tidestore.store.io;

import java.time.Duration;
import java.util.Objects;

/**
 * How to build an {@link IoQueue} (read by {@code io.tidestore.store.io.backend.IoQueues}, which
 * picks the backend). Immutable; safe to share.
 *
 * @param capacity operations in flight at most (a power of two, 1..4096); the io_uring backend
 *     sizes its completion queue so that this many operations can never overflow it
 * @param backend which backend to use; {@link Backend#AUTO} picks io_uring when the kernel and the
 *     JVM allow it
 * @param deferTaskrun whether the io_uring backend may use IORING_SETUP_DEFER_TASKRUN (completions
 *     then run only when the owner thread enters the kernel, which {@link IoQueue#poll()} does)
 * @param pollMode spin in {@link IoQueue#await} instead of sleeping in the kernel (off by default:
 *     it burns a core)
 * @param fallbackThreads worker threads of the FileChannel backend (its queue depth)
 * @param maxFiles files open at once through one queue (the io_uring registered-file table size)
 * @param closeTimeout how long {@link IoQueue#close()} waits for operations the kernel already has
 */
public record IoQueueConfig(
    int capacity,
    Backend backend,
    boolean deferTaskrun,
    boolean pollMode,
    int fallbackThreads,
    int maxFiles,
    Duration closeTimeout) {

  /** Backend choice. */
  public enum Backend {
    /** io_uring if available, else FileChannel (the reason is in {@link IoQueue#describe()}). */
    AUTO,
    /** io_uring or fail: for deployments that must not run on the slow path silently. */
    IO_URING,
    /** FileChannel, even where io_uring works. */
    FILE_CHANNEL;

    /** Parses the flag {@code auto}, {@code io_uring} or {@code filechannel}. */
    public static Backend parse(String text) {
      return switch (text.toLowerCase(java.util.Locale.ROOT).replace('-', '_')) {
        case "auto" -> AUTO;
        case "io_uring", "iouring", "uring" -> IO_URING;
        case "filechannel", "file_channel" -> FILE_CHANNEL;
        default ->
            throw new IllegalArgumentException(
                "must be auto, io_uring or filechannel, got '" + text + "'");
      };
    }
  }

  /** Largest capacity: the completion queue is twice this, within IORING_MAX_CQ_ENTRIES. */
  public static final int MAX_CAPACITY = 4096;

  public IoQueueConfig {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(closeTimeout, "closeTimeout");
    if (capacity < 1 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException(
          "capacity must be a power of two in 1.." + MAX_CAPACITY + ", got " + capacity);
    }
    if (fallbackThreads < 1 || fallbackThreads > 256) {
      throw new IllegalArgumentException(
          "fallbackThreads must be in 1..256, got " + fallbackThreads);
    }
    if (maxFiles < 1 || maxFiles > 4096) {
      throw new IllegalArgumentException("maxFiles must be in 1..4096, got " + maxFiles);
    }
    if (closeTimeout.isNegative()) {
      throw new IllegalArgumentException("closeTimeout must not be negative");
    }
  }

  /** 128 operations, AUTO backend, DEFER_TASKRUN allowed, no spinning, 8 fallback workers. */
  public static IoQueueConfig defaults() {
    return new IoQueueConfig(128, Backend.AUTO, true, false, 8, 64, Duration.ofSeconds(30));
  }

  public IoQueueConfig withCapacity(int newCapacity) {
    return new IoQueueConfig(
        newCapacity, backend, deferTaskrun, pollMode, fallbackThreads, maxFiles, closeTimeout);
  }

  public IoQueueConfig withBackend(Backend newBackend) {
    return new IoQueueConfig(
        capacity, newBackend, deferTaskrun, pollMode, fallbackThreads, maxFiles, closeTimeout);
  }

  public IoQueueConfig withDeferTaskrun(boolean on) {
    return new IoQueueConfig(
        capacity, backend, on, pollMode, fallbackThreads, maxFiles, closeTimeout);
  }

  public IoQueueConfig withPollMode(boolean on) {
    return new IoQueueConfig(
        capacity, backend, deferTaskrun, on, fallbackThreads, maxFiles, closeTimeout);
  }

  public IoQueueConfig withFallbackThreads(int threads) {
    return new IoQueueConfig(
        capacity, backend, deferTaskrun, pollMode, threads, maxFiles, closeTimeout);
  }
}
