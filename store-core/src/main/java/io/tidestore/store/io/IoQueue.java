package io.tidestore.store.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * An asynchronous queue of block I/O against files opened for direct I/O: the shape of one
 * io_uring, with a FileChannel fallback behind the same contract.
 *
 * <h2>Threading</h2>
 *
 * A queue is created on, and used only by, its owner thread: every method except {@link
 * #completionFd()} and {@link #describe()} must be called on it (implementations check). This is
 * what keeps io_uring's SINGLE_ISSUER and DEFER_TASKRUN valid, and lets a shard own its queue
 * without locks.
 *
 * <h2>Life of an operation</h2>
 *
 * <ol>
 *   <li>Prepare: {@link #read}, {@link #write}, {@link #writeDurable}, {@link #sync}, {@link
 *       #writeThenSync} queue an operation; nothing reaches the kernel yet. Preparing more than
 *       {@link #capacity()} operations in flight throws {@link IoQueueFullException} (in-flight ops
 *       are capped at the completion queue's size, so completions can never overflow).
 *   <li>{@link #submit()} hands every prepared operation to the kernel in one system call.
 *   <li>{@link #poll()} or {@link #await(long)} delivers completions, on the owner thread, to each
 *       operation's {@link IoCompletion}. Every prepared operation completes exactly once,
 *       successfully or with an {@link IoOpException}; {@link #close()} completes those still in
 *       flight rather than leaving callers hanging (see there). A completion that throws (a bug in
 *       the caller) does not keep the others ready with it from being delivered: the call delivers
 *       them all, then rethrows the first throwable, any later ones suppressed in it.
 * </ol>
 *
 * <h2>Buffers</h2>
 *
 * Buffers are native {@link MemorySegment}s aligned to {@link #alignment()} (4096), with lengths
 * and file offsets that are multiples of it (O_DIRECT's rule; a misaligned request fails with
 * EINVAL like the kernel's). A buffer inside a region given to {@link #registerBuffers} is used as
 * a registered (fixed) buffer by the io_uring backend; others work unregistered. The caller owns
 * every buffer and must keep it alive and untouched until its operation completes.
 */
public interface IoQueue extends AutoCloseable {

  /** One line for the log: backend, features in use, and why a fallback was chosen. */
  String describe();

  /** The backend: {@link IoBackend#IO_URING} or {@link IoBackend#FILE_CHANNEL}. */
  IoBackend backend();

  /** Opens (creating if asked) a file or block device for direct I/O and registers it here. */
  IoFile open(Path path, IoFile.Mode mode) throws IOException;

  /**
   * Registers memory regions (e.g. a shard's buffer pool and cache slabs) so I/O into them uses
   * fixed buffers. A refused registration (RLIMIT_MEMLOCK) is logged and leaves the queue working
   * with unregistered buffers; returns whether registration took effect.
   */
  boolean registerBuffers(MemorySegment... regions);

  /**
   * Registers one more region while the queue runs, operations in flight or not: memory made after
   * {@link #registerBuffers} ran, such as a shard's journal buffers. Returns a handle for {@link
   * #unregisterBuffer}, or -1 when the region stays unregistered (no io_uring, a kernel without
   * sparse buffer tables, a refusal); I/O into it works either way.
   */
  default int registerBuffer(MemorySegment region) {
    return -1;
  }

  /**
   * Drops a region {@link #registerBuffer} registered. Call it before the region's memory is freed:
   * the kernel keeps the registered pages, and a later allocation at the same address must not be
   * taken for them. A no-op once the queue is closed.
   */
  default void unregisterBuffer(int handle) {}

  /** Required alignment of buffer addresses, lengths and file offsets, in bytes. */
  int alignment();

  /** Maximum operations in flight (prepared and not yet completed). */
  int capacity();

  /** Operations prepared or submitted and not yet completed. */
  int inFlight();

  /** Reads {@code buffer.byteSize()} bytes at {@code offset}; a short read completes short. */
  void read(IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag);

  /** Writes {@code buffer} at {@code offset}; durable only after a later {@link #sync}. */
  void write(IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag);

  /**
   * Writes {@code buffer} at {@code offset} and completes once it is on stable storage (RWF_DSYNC).
   */
  void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag);

  /**
   * Flushes every write to {@code file} that completed before this operation was submitted
   * (fdatasync semantics).
   */
  void sync(IoFile file, IoCompletion completion, long tag);

  /**
   * A write linked to an fdatasync that runs only after it succeeds (IOSQE_IO_LINK): one
   * completion, delivered when both are done, carrying the write's byte count; if the write fails,
   * the sync is cancelled and the completion carries the write's error.
   */
  void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag);

  /** Submits every prepared operation in one system call; returns how many were submitted. */
  int submit() throws IOException;

  /**
   * Opens a submission batch: until the matching {@link #endBatch}, {@link #submit} only notes that
   * a submission is wanted (and returns 0), so the several owners of one queue, the shards of a
   * reactor, reach the kernel with one system call per loop pass instead of one each. {@link
   * #await} still submits everything. Owner thread only; batches nest. A no-op where submitting is
   * not a system call.
   */
  default void beginBatch() {}

  /** Closes a batch opened by {@link #beginBatch}; the outermost one submits what was held. */
  default void endBatch() throws IOException {}

  /**
   * Submits every prepared operation now, even inside a batch: for I/O that should reach the device
   * before the rest of the batch's work runs (a journal group's next records, issued as its flush
   * completes and before the acknowledgements it releases are sent). Owner thread only.
   */
  default int submitNow() throws IOException {
    return submit();
  }

  /** Delivers every completion that is ready, without blocking; returns how many. */
  int poll();

  /**
   * Submits what is prepared, then blocks until at least one completion is ready or {@code
   * timeoutNanos} passes, and delivers what is ready; returns how many were delivered.
   */
  int await(long timeoutNanos) throws IOException;

  /**
   * The wake-up seam for an event loop: a file descriptor (an eventfd) that becomes readable when
   * completions are ready, so a Netty loop can watch it and call {@link #poll()} on its own thread
   * without a helper thread or spinning. The loop must drain the eventfd before polling. -1 when
   * the backend has no fd; then {@link #setCompletionListener} is the seam.
   */
  int completionFd();

  /**
   * For backends without a {@link #completionFd()}: called from a foreign thread whenever a
   * completion becomes ready; the listener must hand control to the owner thread (e.g. {@code
   * eventLoop.execute(queue::poll)}), never call {@link #poll()} itself. A backend that has a
   * completion fd throws {@link IllegalStateException}: watch the fd instead.
   */
  void setCompletionListener(Runnable listener);

  /**
   * Closes the queue and its files. Operations prepared but not submitted fail with ECANCELED (the
   * kernel never saw them). Submitted operations may still be reading or writing their buffers, so
   * close waits for them (up to the configured close timeout) and delivers their real outcome
   * before anything is freed; only then may the caller free its buffers. Completions delivered
   * during close must not prepare new operations (they throw {@link IllegalStateException}).
   */
  @Override
  void close();
}
