package io.tidestore.store.io.uring;

import io.tidestore.store.io.AbstractIoQueue;
import io.tidestore.store.io.CompletionFailures;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.nativeio.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The io_uring backend of {@link IoQueue}: prepares SQEs, submits them, reaps and delivers CQEs.
 * Owner thread only (checked), see {@link IoQueue}.
 *
 * <p>Sizing: a ring of {@code 2 * capacity} SQEs and CQEs, because one operation takes at most two
 * (a linked write + fdatasync); so with at most {@code capacity} operations in flight neither ring
 * can overflow. Per-operation state lives in {@link OpSlots}; the CQE's user_data packs (slot,
 * part, opcode), see {@link UserData}; {@link OpSqes} writes an operation's SQEs and {@link Reaper}
 * delivers its CQEs. Files and buffers registered with the ring are kept by {@link FileTable} and
 * {@link BufferTable}; entering the kernel is {@link IoUringEnter}'s. All the native memory comes
 * from one confined {@link Arena}, closed with the ring.
 */
final class IoUringQueue extends AbstractIoQueue<IoUringFile> {
  private static final System.Logger LOG = System.getLogger(IoUringQueue.class.getName());

  private final IoQueueConfig config;
  private final Arena arena;
  private final Ring ring;
  private final boolean deferTaskrun;
  private final int eventFd;
  private final String reason;
  private final int ioWorkers;
  private final OpSlots slots;
  private final FileTable files;
  private final BufferTable buffers;
  private final IoUringEnter enter;
  private final Reaper reaper;

  /** Open {@link #beginBatch} calls, and whether a {@link #submit} came in meanwhile. */
  private int batchDepth;

  private boolean submitHeld;

  IoUringQueue(IoQueueConfig config, Libc libc, Syscalls sys, String reason)
      throws IoUringSetupException {
    super(config.capacity());
    this.config = config;
    this.reason = reason;
    int capacity = config.capacity();
    this.arena = Arena.ofConfined();
    MemorySegment state = Libc.allocateCallState(arena);
    Ring created;
    try {
      created = Ring.setup(sys, arena, state, 2 * capacity, 2 * capacity, config.deferTaskrun());
    } catch (IoUringSetupException | RuntimeException e) {
      arena.close();
      throw e;
    }
    this.ring = created;
    this.deferTaskrun = ring.has(IoUringAbi.IORING_SETUP_DEFER_TASKRUN);
    this.slots = new OpSlots(capacity);
    this.enter = new IoUringEnter(ring, arena);
    this.files = new FileTable(ring, libc, arena, config.maxFiles());
    this.buffers = new BufferTable(ring);
    this.reaper = new Reaper(this, ring, slots, enter, libc);
    this.ioWorkers = ring.raiseIoWorkerCap(capacity);
    int fd;
    try {
      fd = ring.registerEventFd();
    } catch (IoUringSetupException e) {
      closeRing();
      throw e;
    }
    this.eventFd = fd;
  }

  @Override
  public String describe() {
    return "IO_URING backend ("
        + reason
        + "): ring fd "
        + ring.fd
        + ", "
        + ring.sq.entries()
        + " SQEs/"
        + ring.cq.entries()
        + " CQEs, flags ["
        + ring.describeFlags()
        + "], registered files "
        + (files.registered() ? "on" : "off")
        + ", registered buffers "
        + (buffers.count() > 0 ? buffers.count() + " regions" : "none")
        + ", io-wq bounded workers "
        + (ioWorkers > 0 ? String.valueOf(ioWorkers) : "default")
        + ", eventfd "
        + eventFd
        + (config.pollMode() ? ", poll mode (spinning)" : "")
        + ", capacity "
        + capacity();
  }

  @Override
  public IoBackend backend() {
    return IoBackend.IO_URING;
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    checkOwner();
    checkOpen();
    return files.open(this, path, mode);
  }

  long size(IoUringFile file) {
    checkOwner();
    if (!file.isOpen()) {
      throw new IllegalStateException("file is closed: " + file);
    }
    long size = ring.sys.size(ring.state, file.fd);
    if (size < 0) {
      throw new IllegalStateException("lseek " + file + ": " + Errno.name((int) -size));
    }
    return size;
  }

  @Override
  protected void closeFile(IoUringFile file) {
    files.close(file);
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    checkOwner();
    checkOpen();
    if (inFlight() > 0) {
      throw new IllegalStateException("register buffers with no operation in flight");
    }
    return buffers.register(regions);
  }

  @Override
  public int registerBuffer(MemorySegment region) {
    checkOwner();
    checkOpen();
    return buffers.add(region);
  }

  @Override
  public void unregisterBuffer(int handle) {
    checkOwner();
    if (isClosed()) {
      return; // the ring and its table are gone
    }
    buffers.remove(handle);
  }

  @Override
  protected void prepare(
      IoOpException.Op op,
      IoUringFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    if (op == IoOpException.Op.SYNC) {
      int slot = slots.take(op, file, 0, 0, completion, tag, 1);
      OpSqes.addFsync(ring.sq, file, slot, UserData.PART_MAIN);
      return;
    }
    int length = (int) buffer.byteSize();
    int cqes = op == IoOpException.Op.WRITE_THEN_SYNC ? 2 : 1;
    int slot = slots.take(op, file, offset, length, completion, tag, cqes);
    long address = buffer.address();
    int region = buffers.indexOf(address, length);
    OpSqes.addReadWrite(ring.sq, op, file, slot, offset, address, length, region);
  }

  @Override
  public int submit() throws IOException {
    checkOwner();
    checkOpen();
    if (batchDepth > 0) {
      submitHeld = true;
      return 0;
    }
    int count = slots.preparedCount();
    ring.sq.publish();
    slots.clearPrepared();
    enter.submit();
    return count;
  }

  @Override
  public int submitNow() throws IOException {
    checkOwner();
    checkOpen();
    int count = slots.preparedCount();
    if (count == 0) {
      return 0;
    }
    ring.sq.publish();
    slots.clearPrepared();
    enter.submit();
    return count;
  }

  /**
   * One enter for the whole batch also means one block-layer plug: the shards' writes reach the
   * device together (one virtio notification), and none can complete, and run its RWF_DSYNC cache
   * flush, inline in the submitting reactor while the others wait to be issued. Submitting per
   * shard cost 8 io_uring_enter calls a pass with 8 shards on a reactor.
   */
  @Override
  public void beginBatch() {
    checkOwner();
    batchDepth++;
  }

  @Override
  public void endBatch() throws IOException {
    checkOwner();
    if (batchDepth == 0) {
      throw new IllegalStateException("endBatch without beginBatch");
    }
    if (--batchDepth == 0 && submitHeld) {
      submitHeld = false;
      submit();
    }
  }

  @Override
  public int poll() {
    checkOwner();
    if (reaper.isDelivering() || isClosed()) {
      return 0;
    }
    // Completions often prepare the next I/O (a journal seals the batch that waited for a write):
    // what they prepare goes to the kernel together, in one enter once all are delivered.
    beginBatch();
    try {
      return reaper.deliverCompletions();
    } finally {
      try {
        endBatch();
      } catch (IOException e) {
        // The SQEs stay published and go with the next enter; only a broken ring fails here.
        LOG.log(System.Logger.Level.ERROR, "io_uring submit after completions failed", e);
      }
    }
  }

  @Override
  public int await(long timeoutNanos) throws IOException {
    checkOwner();
    checkOpen();
    ring.sq.publish();
    slots.clearPrepared();
    if (inFlight() == 0 || ring.cq.ready() > 0) {
      if (deferTaskrun) {
        enter.getEvents();
      } else {
        enter.submit();
      }
      return reaper.deliverReady();
    }
    long timeout = Math.max(0, timeoutNanos);
    if (config.pollMode()) {
      enter.submit();
      long deadline = System.nanoTime() + timeout;
      while (true) {
        int n = poll();
        if (n > 0 || System.nanoTime() - deadline >= 0) {
          return n;
        }
        Thread.onSpinWait();
      }
    }
    enter.waitForOne(timeout);
    return reaper.deliverReady();
  }

  /** Frees a delivered or cancelled operation's slot; its completion runs next. */
  void release(int slot) {
    delivered(slots.release(slot));
  }

  @Override
  public int completionFd() {
    return eventFd;
  }

  /**
   * io_uring wakes through {@link #completionFd()}; a listener would need a thread watching it,
   * which is exactly what the seam avoids.
   */
  @Override
  public void setCompletionListener(Runnable listener) {
    throw new IllegalStateException(
        "the io_uring backend wakes its loop through completionFd() "
            + eventFd
            + "; watch that fd");
  }

  @Override
  public void close() {
    checkOwner();
    if (isClosed()) {
      return;
    }
    markClosing();
    // A completion that throws must not leave the others undelivered nor the ring open: its
    // throwable comes out once the queue is closed.
    Throwable failure = null;
    // Prepared, never published: the kernel never saw them.
    int unpublished = slots.preparedCount();
    ring.sq.discardUnpublished();
    slots.clearPrepared();
    for (int i = 0; i < unpublished; i++) {
      try {
        reaper.cancel(slots.preparedSlot(i));
      } catch (Throwable thrown) {
        failure = CompletionFailures.add(failure, thrown);
      }
    }
    // Published: the kernel may be reading or writing their buffers; wait for every CQE before
    // the rings go and the caller frees its buffers.
    long deadline = System.nanoTime() + config.closeTimeout().toNanos();
    while (inFlight() > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        enter.waitForOne(Math.min(left, 100_000_000L));
      } catch (IOException e) {
        LOG.log(System.Logger.Level.ERROR, "io_uring_enter while closing", e);
        break;
      }
      try {
        reaper.deliverReady();
      } catch (Throwable thrown) {
        failure = CompletionFailures.add(failure, thrown);
      }
    }
    markClosed();
    releaseOnceDrained();
    CompletionFailures.rethrow(failure);
  }

  /** The end of {@link #close()}: frees the ring unless the kernel still has operations. */
  private void releaseOnceDrained() {
    if (inFlight() > 0) {
      // Unmapping now would not hurt the kernel, but the caller would free buffers it still
      // writes; keep everything and say so.
      LOG.log(
          System.Logger.Level.ERROR,
          "io_uring queue closed with {0} operations the kernel has not completed after {1};"
              + " leaving the ring open",
          inFlight(),
          config.closeTimeout());
      return;
    }
    files.closeAll();
    Ring.closeQuietly(eventFd);
    closeRing();
  }

  private void closeRing() {
    ring.close();
    arena.close();
  }
}
