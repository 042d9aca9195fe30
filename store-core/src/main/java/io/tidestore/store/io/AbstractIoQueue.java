package io.tidestore.store.io;

import io.tidestore.store.owner.Owner;
import java.lang.foreign.MemorySegment;

/**
 * What every {@link IoQueue} backend does alike, kept in one place so that all of them refuse the
 * same requests with the same exceptions: the owner-thread rule, the life cycle (open, closing,
 * closed), the checks an operation passes before it is queued (buffer, file, offset, capacity), and
 * the in-flight counts of the queue and of each of its files.
 *
 * <p>A backend implements {@link #prepare} for an operation that passed the checks, calls {@link
 * #delivered} just before it hands an operation's outcome to the caller, and {@link #closeFile}
 * closes one of its files once {@link AbstractIoFile#close()} found it closable. Nothing here
 * allocates on the per-operation path.
 *
 * @param <F> the backend's file type; every file of this queue is one (the backend creates them)
 */
public abstract class AbstractIoQueue<F extends AbstractIoFile> implements IoQueue {
  private final Owner owner;
  private final int capacity;
  private int inFlight;
  private boolean closing;
  private boolean closed;

  /** A queue of {@code capacity} operations, owned by the calling thread. */
  protected AbstractIoQueue(int capacity) {
    this(capacity, Owner.currentThread());
  }

  /**
   * A queue of {@code capacity} operations used under {@code owner}'s rule: one thread, or whoever
   * holds a lock (the classic engine's shard lock).
   */
  protected AbstractIoQueue(int capacity, Owner owner) {
    this.owner = owner;
    this.capacity = capacity;
  }

  @Override
  public final int alignment() {
    return AlignedBufferPool.ALIGNMENT;
  }

  @Override
  public final int capacity() {
    return capacity;
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public final void read(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, true);
    queue(IoOpException.Op.READ, file, offset, buffer, completion, tag);
  }

  @Override
  public final void write(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    queue(IoOpException.Op.WRITE, file, offset, buffer, completion, tag);
  }

  @Override
  public final void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    queue(IoOpException.Op.WRITE_DURABLE, file, offset, buffer, completion, tag);
  }

  @Override
  public final void sync(IoFile file, IoCompletion completion, long tag) {
    queue(IoOpException.Op.SYNC, file, 0, null, completion, tag);
  }

  @Override
  public final void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    queue(IoOpException.Op.WRITE_THEN_SYNC, file, offset, buffer, completion, tag);
  }

  private void queue(
      IoOpException.Op op,
      IoFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    checkOwner();
    if (closing) {
      throw new IllegalStateException("queue is closing");
    }
    F own = ownFile(file);
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset);
    }
    if (inFlight == capacity) {
      throw new IoQueueFullException(capacity);
    }
    prepare(op, own, offset, buffer, completion, tag);
    own.inFlight++;
    inFlight++;
  }

  /**
   * This queue's own file: opened by this very queue object (identity, not equality), and so an F.
   * A closed one is accepted: the operation then fails with EBADF, like the kernel's.
   */
  @SuppressWarnings({"ReferenceEquality", "unchecked"})
  private F ownFile(IoFile file) {
    if (!(file instanceof AbstractIoFile f) || f.queue() != this) {
      throw new IllegalArgumentException("file was not opened by this queue: " + file);
    }
    return (F) f;
  }

  /**
   * Queues an operation that passed every check, with a free slot for it: {@code buffer} is null
   * for {@link IoOpException.Op#SYNC}. It must not fail; it completes exactly once, through {@link
   * #delivered} and then {@code completion}.
   */
  protected abstract void prepare(
      IoOpException.Op op,
      F file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag);

  /** Owner thread: an operation on {@code file} leaves the queue; its completion runs next. */
  protected final void delivered(F file) {
    file.inFlight--;
    inFlight--;
  }

  /** {@link IoFile#close()}: idempotent; refused while operations on the file are in flight. */
  final void close(AbstractIoFile file) {
    checkOwner();
    if (!file.isOpen()) {
      return;
    }
    if (file.inFlight > 0) {
      throw new IllegalStateException(
          file.inFlight + " operations still in flight on " + file + "; close after they complete");
    }
    @SuppressWarnings("unchecked") // as in ownFile: the file was created by this queue
    F own = (F) file;
    closeFile(own);
  }

  /** Closes an open file of this queue with no operation in flight on it. */
  protected abstract void closeFile(F file);

  /** Every method but describe() and completionFd() runs on the owner (see {@link IoQueue}). */
  protected final void checkOwner() {
    if (!owner.isCurrent()) {
      throw new WrongThreadException("I/O queue is owned by " + owner.describe());
    }
  }

  /** Refuses calls once {@link #close()} has finished. */
  protected final void checkOpen() {
    if (closed) {
      throw new IllegalStateException("queue is closed");
    }
  }

  /** Who may call this queue: its owner thread, or the holder of its owner's lock. */
  public final Owner owner() {
    return owner;
  }

  /** Whether {@link #close()} has begun: no operation may be prepared any more. */
  protected final boolean isClosing() {
    return closing;
  }

  protected final boolean isClosed() {
    return closed;
  }

  /** {@link #close()} begins: from now on preparing an operation throws. */
  protected final void markClosing() {
    closing = true;
  }

  /** {@link #close()} is over: from now on submitting throws. */
  protected final void markClosed() {
    closed = true;
  }
}
