package io.tidestore.store.io.handoff;

import io.tidestore.store.io.AbstractIoQueue;
import io.tidestore.store.io.CompletionFailures;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.owner.Owner;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The classic engine's I/O hand-off: an {@link IoQueue} owned by an op worker whose ring is owned
 * by a separate {@link IoThread}, as a classic OSD hands its I/O to aio threads. The I/O thread
 * creates the ring (with {@link IoQueues#create}), submits to it and reaps it ({@link
 * IoThread#reap}); the worker prepares operations here and {@link #submit()} hands the whole batch
 * over at once, so a worker's end-of-pass flush still reaches the kernel as one submission, exactly
 * as a reactor's does. Completions are handed back and delivered on the worker by {@link #poll()},
 * which the worker's loop runs when the completion listener wakes it (the queue has no completion
 * fd, like the FileChannel backend).
 *
 * <p>The ring is made without DEFER_TASKRUN whatever the config says (see {@link #open}): its
 * completions must reach the I/O thread through the eventfd alone.
 *
 * <p>No allocation per operation: a fixed pool of {@link #capacity()} slots ({@link HandedOffOp})
 * travels between the threads through two bounded lock-free queues, and each direction wakes the
 * other thread with one reused task (to the I/O thread, coalesced by a flag) or the listener.
 *
 * <p>Threading: every method but {@link #describe()}, {@link #completionFd()} and {@link
 * #setCompletionListener} runs on the owner (the thread that called {@link #open}, or in the
 * classic engine whoever holds the shard lock the queue was opened under); the rare calls that need
 * the ring itself (opening files, registering buffers, a file's size, close) wait for the I/O
 * thread to run them.
 */
public final class IoThreadQueue extends AbstractIoQueue<HandedOffFile> {
  private final IoThread ioThread;
  private final IoQueue ring;
  private final IoThread.Reaping reaping;
  private final String description;
  private final IoBackend backend;

  private final ArrayDeque<HandedOffOp> free;
  private final ArrayDeque<HandedOffOp> prepared;
  private final BoundedMpscQueue<HandedOffOp> toIo;
  private final BoundedMpscQueue<HandedOffOp> fromIo;
  private final AtomicBoolean ioScheduled = new AtomicBoolean();
  private final Runnable ioDrain = this::drainOnIoThread;
  private volatile Runnable completionListener;
  private volatile Thread awaiting;
  private volatile IOException submitFailure;

  /** I/O thread only: set as close reaches it, after which nothing more goes to the ring. */
  private boolean ringClosed;

  private IoThreadQueue(IoThread ioThread, BoundRing bound, Owner owner) {
    super(bound.ring().capacity(), owner);
    this.ioThread = ioThread;
    this.ring = bound.ring();
    this.reaping = bound.reaping();
    this.description = ring.describe() + ", submitted and reaped on " + bound.ioThreadName();
    this.backend = ring.backend();
    int capacity = capacity();
    this.free = new ArrayDeque<>(capacity);
    this.prepared = new ArrayDeque<>(capacity);
    for (int i = 0; i < capacity; i++) {
      free.push(new HandedOffOp(this));
    }
    this.toIo = new BoundedMpscQueue<>(capacity);
    this.fromIo = new BoundedMpscQueue<>(capacity);
  }

  /**
   * Creates a ring on {@code ioThread}, reaped there, and returns the queue the calling thread (an
   * op worker) owns in front of it; blocks until the ring exists.
   */
  public static IoThreadQueue open(IoThread ioThread, IoQueueConfig config) throws IOException {
    return open(ioThread, config, Owner.currentThread());
  }

  /**
   * {@link #open(IoThread, IoQueueConfig)} for a queue used under {@code owner}'s rule: the classic
   * engine's shard lock, held in turn by op workers and the commit thread.
   */
  public static IoThreadQueue open(IoThread ioThread, IoQueueConfig config, Owner owner)
      throws IOException {
    if (ioThread.inThread()) {
      throw new IllegalStateException("the owner of a handed-off queue is not its I/O thread");
    }
    BoundRing bound =
        call(
            ioThread,
            () -> {
              // Never DEFER_TASKRUN: it leaves each completion's work queued in the kernel until
              // the ring's owner enters with GETEVENTS, and the I/O thread enters only when the
              // ring's eventfd fires, which the kernel signals only as that queue turns non-empty.
              // Under load, finished writes and fdatasyncs were seen waiting there with the
              // eventfd at 0 and the I/O thread asleep, until something else signalled it
              // (ClassicEngineIT). Without it the kernel posts the CQE itself (COOP_TASKRUN) and
              // signals the eventfd for every CQE it posts.
              IoQueue ring = IoQueues.create(config.withDeferTaskrun(false));
              try {
                return new BoundRing(ring, ioThread.reap(ring), Thread.currentThread().getName());
              } catch (IOException | RuntimeException e) {
                ring.close();
                throw e;
              }
            });
    return new IoThreadQueue(ioThread, bound, owner);
  }

  /** A ring, its reaping on the I/O thread, and that thread's name. */
  private record BoundRing(IoQueue ring, IoThread.Reaping reaping, String ioThreadName) {}

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
    checkNotClosing();
    return new HandedOffFile(this, onIoThread(() -> ring.open(path, mode)));
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    checkOwner();
    checkNotClosing();
    try {
      return onIoThread(() -> ring.registerBuffers(regions));
    } catch (IOException e) {
      throw new IllegalStateException("registering buffers on the I/O thread", e);
    }
  }

  @Override
  public int registerBuffer(MemorySegment region) {
    checkOwner();
    checkNotClosing();
    try {
      return onIoThread(() -> ring.registerBuffer(region));
    } catch (IOException e) {
      throw new IllegalStateException("registering a buffer on the I/O thread", e);
    }
  }

  @Override
  public void unregisterBuffer(int handle) {
    checkOwner();
    if (isClosing()) {
      return; // the ring goes with its table
    }
    try {
      onIoThread(
          () -> {
            ring.unregisterBuffer(handle);
            return null;
          });
    } catch (IOException e) {
      throw new IllegalStateException("dropping a buffer on the I/O thread", e);
    }
  }

  @Override
  public int inFlight() {
    checkOwner();
    return super.inFlight();
  }

  @Override
  protected void prepare(
      IoOpException.Op op,
      HandedOffFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    HandedOffOp request = free.pop();
    request.set(op, file, offset, buffer, completion, tag);
    prepared.add(request);
  }

  @Override
  protected void closeFile(HandedOffFile file) {
    file.closeOnIoThread();
  }

  /** Hands every prepared operation to the I/O thread, which submits them to its ring at once. */
  @Override
  public int submit() throws IOException {
    checkOwner();
    checkOpen();
    IOException failed = submitFailure;
    if (failed != null) {
      throw new IOException("the I/O thread's submission failed", failed);
    }
    int handed = prepared.size();
    if (handed == 0) {
      return 0;
    }
    for (HandedOffOp request = prepared.poll(); request != null; request = prepared.poll()) {
      if (!toIo.offer(request)) {
        // Cannot happen: the queue holds capacity() slots and only capacity() requests exist.
        throw new IllegalStateException("hand-off queue full with " + inFlight() + " in flight");
      }
    }
    if (ioScheduled.compareAndSet(false, true)) {
      ioThread.execute(ioDrain);
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
    for (HandedOffOp request = toIo.poll(); request != null; request = toIo.poll()) {
      request.prepareOn(ring);
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

  /** Any thread (the I/O thread, or the owner at close): queues a finished request for delivery. */
  void handBack(HandedOffOp request) {
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

  /**
   * Delivers every completion handed back so far, on the owner. A completion that throws does not
   * leave the rest waiting in the hand-off queue (their wake-ups were spent already, so nothing
   * might poll again): the first throwable, with later ones suppressed in it, is rethrown once all
   * were delivered (see {@link CompletionFailures}).
   */
  @Override
  public int poll() {
    checkOwner();
    int delivered = 0;
    Throwable failure = null;
    for (HandedOffOp request = fromIo.poll(); request != null; request = fromIo.poll()) {
      IoCompletion completion = request.completion;
      long tag = request.tag;
      int result = request.result;
      IoOpException error = request.error;
      HandedOffFile file = request.file;
      request.clear();
      free.push(request);
      delivered(file);
      delivered++;
      // The slot is free again, so the completion may prepare its follow-up operation.
      try {
        if (error != null) {
          completion.failed(tag, error);
        } else {
          completion.completed(tag, result);
        }
      } catch (Throwable thrown) {
        failure = CompletionFailures.add(failure, thrown);
      }
    }
    CompletionFailures.rethrow(failure);
    return delivered;
  }

  @Override
  public int await(long timeoutNanos) throws IOException {
    checkOwner();
    submit();
    if (inFlight() == 0) {
      return 0;
    }
    if (fromIo.isEmpty() && timeoutNanos > 0) {
      long deadline = System.nanoTime() + timeoutNanos;
      awaiting = Thread.currentThread();
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
    if (isClosing()) {
      return;
    }
    markClosing();
    for (HandedOffOp request = prepared.poll(); request != null; request = prepared.poll()) {
      request.cancel();
    }
    try {
      onIoThread(
          () -> {
            ringClosed = true;
            for (HandedOffOp request = toIo.poll(); request != null; request = toIo.poll()) {
              request.cancel();
            }
            reaping.close();
            ring.close();
            return null;
          });
    } catch (IOException e) {
      throw new IllegalStateException("closing the ring on its I/O thread", e);
    } finally {
      try {
        poll();
      } finally {
        markClosed();
      }
    }
  }

  /** The ring-side calls (open, registerBuffers) are refused from the moment close begins. */
  private void checkNotClosing() {
    if (isClosing()) {
      throw new IllegalStateException("queue is closed");
    }
  }

  /** Runs {@code work} on the I/O thread and waits for it: only for the rare, non-data calls. */
  <T> T onIoThread(Callable<T> work) throws IOException {
    return call(ioThread, work);
  }

  private static <T> T call(IoThread ioThread, Callable<T> work) throws IOException {
    if (ioThread.inThread()) {
      // The task would queue behind the caller, which would wait for it forever.
      throw new IllegalStateException("a blocking call to the I/O thread from the I/O thread");
    }
    FutureTask<T> task = new FutureTask<>(work);
    ioThread.execute(task);
    try {
      return task.get();
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
}
