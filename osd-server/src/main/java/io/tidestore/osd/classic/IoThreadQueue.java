package io.tidestore.osd.classic;

import io.netty.channel.IoEventLoop;
import io.netty.util.internal.PlatformDependent;
import io.tidestore.osd.reactor.IoQueueLoopBinding;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.IoQueueFullException;
import io.tidestore.store.io.backend.IoQueues;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The classic engine's I/O hand-off: an {@link IoQueue} owned by an op worker whose ring is owned
 * by a separate I/O thread (an {@code io-N} loop), as a classic OSD hands its I/O to aio threads.
 * The I/O thread creates the ring, submits to it and reaps it (its eventfd is watched by the I/O
 * loop through {@link IoQueueLoopBinding}); the worker prepares operations here and {@link
 * #submit()} hands the whole batch over at once, so a worker's end-of-pass flush still reaches the
 * kernel as one submission, exactly as a reactor's does. Completions are handed back and delivered
 * on the worker by {@link #poll()}, which the worker's loop runs when the completion listener (set
 * by {@link IoQueueLoopBinding}, as for the FileChannel backend) wakes it.
 *
 * <p>No allocation per operation: a fixed pool of {@link #capacity()} request slots travels between
 * the threads through two bounded MPSC array queues (the kind Netty's loops use for their tasks),
 * and each direction wakes the other thread with one reused task, coalesced by a flag.
 *
 * <p>Threading: every method but {@link #describe()} and {@link #completionFd()} runs on the owner
 * (the thread that called {@link #open}); the rare calls that need the ring itself (opening files,
 * registering buffers, a file's size, close) wait for the I/O thread to run them.
 */
public final class IoThreadQueue implements IoQueue {
  private enum Kind {
    READ,
    WRITE,
    WRITE_DURABLE,
    SYNC,
    WRITE_THEN_SYNC
  }

  private final IoEventLoop ioLoop;
  private final IoQueue ring;
  private final IoQueueLoopBinding ringBinding;
  private final Thread owner;
  private final String description;
  private final IoBackend backend;
  private final int alignment;
  private final int capacity;

  private final ArrayDeque<Request> free;
  private final ArrayDeque<Request> prepared;
  private final Queue<Request> toIo;
  private final Queue<Request> fromIo;
  private final AtomicBoolean ioScheduled = new AtomicBoolean();
  private final Runnable ioDrain = this::drainOnIoThread;
  private volatile Runnable completionListener;
  private volatile Thread awaiting;
  private volatile IOException submitFailure;
  private int inFlight;
  private boolean closed;
  private boolean ringClosed;

  private IoThreadQueue(IoEventLoop ioLoop, BoundRing bound) {
    this.ioLoop = ioLoop;
    this.ring = bound.ring();
    this.ringBinding = bound.binding();
    this.owner = Thread.currentThread();
    this.description = ring.describe() + ", submitted and reaped on " + bound.ioThread();
    this.backend = ring.backend();
    this.alignment = ring.alignment();
    this.capacity = ring.capacity();
    this.free = new ArrayDeque<>(capacity);
    this.prepared = new ArrayDeque<>(capacity);
    for (int i = 0; i < capacity; i++) {
      free.push(new Request());
    }
    this.toIo = PlatformDependent.newFixedMpscQueue(capacity);
    this.fromIo = PlatformDependent.newFixedMpscQueue(capacity);
  }

  /**
   * Creates a ring on {@code ioLoop}'s thread, bound to that loop, and returns the queue the
   * calling thread (an op worker) owns in front of it; blocks until the ring exists.
   */
  public static IoThreadQueue open(IoEventLoop ioLoop, IoQueueConfig config) throws IOException {
    if (ioLoop.inEventLoop()) {
      throw new IllegalStateException("the owner of a handed-off queue is not its I/O thread");
    }
    BoundRing bound =
        call(
            ioLoop,
            () -> {
              IoQueue ring = IoQueues.create(config);
              try {
                return new BoundRing(
                    ring, IoQueueLoopBinding.bind(ioLoop, ring), Thread.currentThread().getName());
              } catch (IOException | RuntimeException e) {
                ring.close();
                throw e;
              }
            });
    return new IoThreadQueue(ioLoop, bound);
  }

  /** A ring, its binding to the I/O loop, and that loop's thread name. */
  private record BoundRing(IoQueue ring, IoQueueLoopBinding binding, String ioThread) {}

  @Override
  public String describe() {
    return description;
  }

  @Override
  public IoBackend backend() {
    return backend;
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    checkOwner();
    checkOpen();
    return call(ioLoop, () -> new HandedOffFile(ring.open(path, mode)));
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    checkOwner();
    checkOpen();
    try {
      return call(ioLoop, () -> ring.registerBuffers(regions));
    } catch (IOException e) {
      throw new IllegalStateException("registering buffers on the I/O thread", e);
    }
  }

  @Override
  public int alignment() {
    return alignment;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public int inFlight() {
    checkOwner();
    return inFlight;
  }

  @Override
  public void read(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    prepare(Kind.READ, file, offset, buffer, completion, tag);
  }

  @Override
  public void write(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    prepare(Kind.WRITE, file, offset, buffer, completion, tag);
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    prepare(Kind.WRITE_DURABLE, file, offset, buffer, completion, tag);
  }

  @Override
  public void sync(IoFile file, IoCompletion completion, long tag) {
    prepare(Kind.SYNC, file, 0, null, completion, tag);
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    prepare(Kind.WRITE_THEN_SYNC, file, offset, buffer, completion, tag);
  }

  private void prepare(
      Kind kind,
      IoFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    checkOwner();
    checkOpen();
    if (!(file instanceof HandedOffFile handed) || handed.queue() != this) {
      throw new IllegalArgumentException("file was not opened by this queue: " + file);
    }
    Request request = free.poll();
    if (request == null) {
      throw new IoQueueFullException(capacity);
    }
    request.kind = kind;
    request.file = handed.delegate;
    request.offset = offset;
    request.buffer = buffer;
    request.completion = completion;
    request.tag = tag;
    prepared.add(request);
    inFlight++;
  }

  /** Hands every prepared operation to the I/O thread, which submits them to its ring at once. */
  @Override
  public int submit() throws IOException {
    checkOwner();
    IOException failed = submitFailure;
    if (failed != null) {
      throw new IOException("the I/O thread's submission failed", failed);
    }
    int handed = prepared.size();
    if (handed == 0) {
      return 0;
    }
    for (Request request = prepared.poll(); request != null; request = prepared.poll()) {
      if (!toIo.offer(request)) {
        // Cannot happen: the queue holds capacity() slots and only capacity() requests exist.
        throw new IllegalStateException("hand-off queue full with " + inFlight + " in flight");
      }
    }
    if (ioScheduled.compareAndSet(false, true)) {
      ioLoop.execute(ioDrain);
    }
    return handed;
  }

  /** On the I/O thread: prepares every handed-over operation on the ring and submits once. */
  private void drainOnIoThread() {
    ioScheduled.set(false);
    if (ringClosed) {
      return;
    }
    int drained = 0;
    for (Request request = toIo.poll(); request != null; request = toIo.poll()) {
      prepareOnRing(request);
      drained++;
    }
    if (drained > 0) {
      try {
        ring.submit();
      } catch (IOException e) {
        submitFailure = e;
      }
    }
  }

  private void prepareOnRing(Request r) {
    try {
      switch (r.kind) {
        case READ -> ring.read(r.file, r.offset, r.buffer, r, 0);
        case WRITE -> ring.write(r.file, r.offset, r.buffer, r, 0);
        case WRITE_DURABLE -> ring.writeDurable(r.file, r.offset, r.buffer, r, 0);
        case SYNC -> ring.sync(r.file, r, 0);
        case WRITE_THEN_SYNC -> ring.writeThenSync(r.file, r.offset, r.buffer, r, 0);
      }
    } catch (RuntimeException e) {
      // What the ring refuses to queue fails as the ring would have failed it, on the worker.
      r.failed(0, new IoOpException(opOf(r.kind), Errno.EINVAL, r.offset, length(r), e.toString()));
    }
  }

  private static IoOpException.Op opOf(Kind kind) {
    return switch (kind) {
      case READ -> IoOpException.Op.READ;
      case WRITE -> IoOpException.Op.WRITE;
      case WRITE_DURABLE -> IoOpException.Op.WRITE_DURABLE;
      case SYNC -> IoOpException.Op.SYNC;
      case WRITE_THEN_SYNC -> IoOpException.Op.WRITE_THEN_SYNC;
    };
  }

  private static long length(Request r) {
    return r.buffer == null ? 0 : r.buffer.byteSize();
  }

  /**
   * Any thread (the I/O thread, or the worker at close): queues a finished request for delivery.
   */
  private void handBack(Request request) {
    if (!fromIo.offer(request)) {
      throw new IllegalStateException("completion hand-off queue full");
    }
    Runnable listener = completionListener;
    if (listener != null) {
      listener.run();
    }
    Thread waiter = awaiting;
    if (waiter != null) {
      LockSupport.unpark(waiter);
    }
  }

  /** Delivers every completion handed back so far, on the owner. */
  @Override
  public int poll() {
    checkOwner();
    int delivered = 0;
    for (Request request = fromIo.poll(); request != null; request = fromIo.poll()) {
      IoCompletion completion = request.completion;
      long tag = request.tag;
      int result = request.result;
      IoOpException error = request.error;
      request.clear();
      free.push(request);
      inFlight--;
      delivered++;
      // The slot is free again, so the completion may prepare its follow-up operation.
      if (error != null) {
        completion.failed(tag, error);
      } else {
        completion.completed(tag, result);
      }
    }
    return delivered;
  }

  @Override
  public int await(long timeoutNanos) throws IOException {
    checkOwner();
    submit();
    if (inFlight == 0) {
      return 0;
    }
    if (fromIo.isEmpty() && timeoutNanos > 0) {
      long deadline = System.nanoTime() + timeoutNanos;
      awaiting = owner;
      try {
        // awaiting is published before the check, so a hand-back after it always unparks us.
        for (long left = timeoutNanos; fromIo.isEmpty() && left > 0; ) {
          LockSupport.parkNanos(this, left);
          left = deadline - System.nanoTime();
        }
      } finally {
        awaiting = null;
      }
    }
    return poll();
  }

  @Override
  public int completionFd() {
    return -1;
  }

  @Override
  public void setCompletionListener(Runnable listener) {
    this.completionListener = listener;
  }

  /**
   * Fails what the ring never saw with ECANCELED, has the I/O thread close the ring (which waits
   * for what the kernel has and hands its real outcome back), then delivers everything here.
   */
  @Override
  public void close() {
    checkOwner();
    if (closed) {
      return;
    }
    closed = true;
    for (Request request = prepared.poll(); request != null; request = prepared.poll()) {
      cancel(request);
    }
    try {
      call(
          ioLoop,
          () -> {
            ringClosed = true;
            for (Request request = toIo.poll(); request != null; request = toIo.poll()) {
              cancel(request);
            }
            ringBinding.close();
            ring.close();
            return null;
          });
    } catch (IOException e) {
      throw new IllegalStateException("closing the ring on its I/O thread", e);
    } finally {
      poll();
    }
  }

  private void cancel(Request request) {
    request.failed(
        0,
        new IoOpException(
            opOf(request.kind),
            Errno.ECANCELED,
            request.offset,
            length(request),
            "queue closed before the operation was submitted"));
  }

  private void checkOwner() {
    if (!owner.equals(Thread.currentThread())) {
      throw new WrongThreadException("I/O queue is owned by " + owner.getName());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("I/O queue is closed");
    }
  }

  /** Runs {@code work} on the I/O thread and waits for it: only for the rare, non-data calls. */
  private static <T> T call(IoEventLoop ioLoop, Callable<T> work) throws IOException {
    try {
      return ioLoop.submit(work).get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the I/O thread", e);
    }
  }

  /** One operation's slot, reused; it is its own completion on the ring. */
  private final class Request implements IoCompletion {
    Kind kind;
    IoFile file;
    long offset;
    MemorySegment buffer;
    IoCompletion completion;
    long tag;
    int result;
    IoOpException error;

    @Override
    public void completed(long ignored, int result) {
      this.result = result;
      this.error = null;
      handBack(this);
    }

    @Override
    public void failed(long ignored, IoOpException error) {
      this.error = error;
      handBack(this);
    }

    void clear() {
      file = null;
      buffer = null;
      completion = null;
      error = null;
    }
  }

  /** The worker's handle on a file the ring opened: calls that need the ring go to its thread. */
  private final class HandedOffFile implements IoFile {
    final IoFile delegate;
    private final Path path;
    private final boolean blockDevice;

    HandedOffFile(IoFile delegate) {
      this.delegate = delegate;
      this.path = delegate.path();
      this.blockDevice = delegate.isBlockDevice();
    }

    IoThreadQueue queue() {
      return IoThreadQueue.this;
    }

    @Override
    public Path path() {
      return path;
    }

    @Override
    public long size() {
      try {
        return call(ioLoop, delegate::size);
      } catch (IOException e) {
        throw new IllegalStateException("size of " + path + " on the I/O thread", e);
      }
    }

    @Override
    public boolean isBlockDevice() {
      return blockDevice;
    }

    @Override
    public void close() {
      try {
        call(
            ioLoop,
            () -> {
              delegate.close();
              return null;
            });
      } catch (IOException e) {
        throw new IllegalStateException("closing " + path + " on the I/O thread", e);
      }
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
