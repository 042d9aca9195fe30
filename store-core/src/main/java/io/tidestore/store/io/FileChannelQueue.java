package io.tidestore.store.io;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The FileChannel backend: channels opened with {@link ExtendedOpenOption#DIRECT}, blocking calls
 * on a small pool of worker threads, completions handed back and delivered on the owner thread by
 * {@link #poll()}/{@link #await}. Used where io_uring is unavailable; same contract as io_uring.
 *
 * <p>Operation slots are preallocated; the hand-offs are bounded blocking queues sized to the
 * capacity, so they never block the owner. Durability: a durable write is write + force(false)
 * (fdatasync) on the worker, a linked write+sync runs both on one worker in order.
 */
public final class FileChannelQueue extends AbstractIoQueue<FileChannelFile> {
  private static final System.Logger LOG = System.getLogger(FileChannelQueue.class.getName());

  private final String reason;
  private final IoQueueConfig config;
  private final FallbackOp[] slots;
  private final int[] freeSlots;
  private int freeCount;
  private final FallbackOp[] prepared;
  private int preparedCount;
  private final ArrayBlockingQueue<FallbackOp> work;
  private final ArrayBlockingQueue<FallbackOp> done;
  private final Thread[] workers;
  private final List<FileChannelFile> files = new ArrayList<>();
  private volatile Runnable listener;

  /**
   * A FileChannel queue owned by the calling thread; {@code reason} (why this backend) goes into
   * {@link #describe()}. Use {@code IoQueues.create}, which chooses the backend.
   */
  public static IoQueue open(IoQueueConfig config, String reason) {
    return new FileChannelQueue(config, reason);
  }

  private FileChannelQueue(IoQueueConfig config, String reason) {
    super(config.capacity());
    this.reason = reason;
    this.config = config;
    int capacity = config.capacity();
    this.slots = new FallbackOp[capacity];
    this.freeSlots = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      slots[i] = new FallbackOp(i);
      freeSlots[i] = capacity - 1 - i;
    }
    this.freeCount = capacity;
    this.prepared = new FallbackOp[capacity];
    this.work = new ArrayBlockingQueue<>(capacity);
    this.done = new ArrayBlockingQueue<>(capacity);
    int threads = Math.min(config.fallbackThreads(), capacity);
    this.workers = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      workers[i] =
          Thread.ofPlatform()
              .daemon()
              .name("tidestore-io-" + Thread.currentThread().getName() + "-" + i)
              .unstarted(this::workLoop);
      workers[i].start();
    }
  }

  private void workLoop() {
    try {
      while (true) {
        FallbackOp op = work.take();
        op.execute();
        done.add(op);
        Runnable wake = listener;
        if (wake != null) {
          wake.run();
        }
      }
    } catch (InterruptedException e) {
      // close(): every operation has been delivered, the worker just leaves.
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String describe() {
    return "FILE_CHANNEL backend ("
        + reason
        + "): FileChannel with O_DIRECT on "
        + workers.length
        + " worker threads, capacity "
        + capacity();
  }

  @Override
  public IoBackend backend() {
    return IoBackend.FILE_CHANNEL;
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    checkOwner();
    if (files.size() >= config.maxFiles()) {
      throw new IOException("too many open files on this queue: " + config.maxFiles());
    }
    List<OpenOption> options = new ArrayList<>(4);
    options.add(StandardOpenOption.READ);
    options.add(ExtendedOpenOption.DIRECT);
    if (mode != IoFile.Mode.READ) {
      options.add(StandardOpenOption.WRITE);
    }
    if (mode == IoFile.Mode.CREATE) {
      options.add(StandardOpenOption.CREATE);
    }
    FileChannel channel = FileChannel.open(path, options.toArray(OpenOption[]::new));
    FileChannelFile file = new FileChannelFile(path, channel, DirectIo.isBlockDevice(path), this);
    files.add(file);
    return file;
  }

  @Override
  protected void closeFile(FileChannelFile file) {
    if (files.remove(file)) {
      try {
        file.channel().close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "closing " + file.path(), e);
      }
    }
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    checkOwner();
    for (MemorySegment region : regions) {
      DirectIo.checkBuffer(region, false);
    }
    // Blocking calls on channels have no registered buffers; every buffer works unregistered.
    return false;
  }

  @Override
  protected void prepare(
      IoOpException.Op op,
      FileChannelFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    FallbackOp slot = slots[freeSlots[--freeCount]];
    slot.set(op, file, offset, buffer, completion, tag, alignment());
    prepared[preparedCount++] = slot;
  }

  @Override
  public int submit() {
    checkOwner();
    checkOpen();
    int n = preparedCount;
    for (int i = 0; i < n; i++) {
      // Never blocks: the queue holds capacity entries and at most capacity ops exist.
      work.add(prepared[i]);
      prepared[i] = null;
    }
    preparedCount = 0;
    return n;
  }

  @Override
  public int poll() {
    checkOwner();
    return deliverDone(null);
  }

  /**
   * Delivers {@code first} (when not null) and every other finished operation. A completion that
   * throws does not leave the rest waiting in {@link #done}: the workers' wake-ups for them were
   * spent already, so nothing might poll again. The first throwable, with later ones suppressed in
   * it, is rethrown once all were delivered (see {@link CompletionFailures}).
   */
  private int deliverDone(FallbackOp first) {
    int delivered = 0;
    Throwable failure = null;
    for (FallbackOp op = first != null ? first : done.poll(); op != null; op = done.poll()) {
      failure = deliver(op, failure);
      delivered++;
    }
    CompletionFailures.rethrow(failure);
    return delivered;
  }

  @Override
  public int await(long timeoutNanos) {
    checkOwner();
    checkOpen();
    submit();
    int delivered = poll();
    if (delivered > 0 || inFlight() == 0) {
      return delivered;
    }
    try {
      FallbackOp op = done.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
      if (op != null) {
        delivered = deliverDone(op);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return delivered;
  }

  /**
   * Delivers {@code op}; returns the batch's {@code failure} so far with what its completion threw
   * added (see {@link CompletionFailures}).
   */
  private Throwable deliver(FallbackOp op, Throwable failure) {
    try {
      deliver(op);
      return failure;
    } catch (Throwable thrown) {
      return CompletionFailures.add(failure, thrown);
    }
  }

  private void deliver(FallbackOp op) {
    IoCompletion completion = op.completion;
    long tag = op.tag;
    int result = op.result;
    IoOpException error =
        result < 0 ? new IoOpException(op.op, -result, op.offset, op.length(), op.detail) : null;
    delivered(op.file);
    op.clear();
    freeSlots[freeCount++] = op.slot;
    if (error == null) {
      completion.completed(tag, result);
    } else {
      completion.failed(tag, error);
    }
  }

  @Override
  public int completionFd() {
    return -1;
  }

  @Override
  public void setCompletionListener(Runnable listener) {
    checkOwner();
    this.listener = listener;
  }

  @Override
  public void close() {
    checkOwner();
    if (isClosed()) {
      return;
    }
    markClosing();
    // A completion that throws must not leave the others undelivered nor the queue open: its
    // throwable comes out once the queue is closed.
    Throwable failure = null;
    // Never handed to a worker: fail them, nothing touched their buffers.
    for (int i = 0; i < preparedCount; i++) {
      FallbackOp op = prepared[i];
      prepared[i] = null;
      op.result = -Errno.ECANCELED;
      op.detail = "queue closed before the operation was submitted";
      failure = deliver(op, failure);
    }
    preparedCount = 0;
    // Handed to workers: they are inside blocking calls on the caller's buffers; wait for them.
    long deadline = System.nanoTime() + config.closeTimeout().toNanos();
    boolean interrupted = false;
    while (inFlight() > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        LOG.log(
            System.Logger.Level.ERROR,
            "closing with {0} operations still running after {1}; their workers are left to finish",
            inFlight(),
            config.closeTimeout());
        break;
      }
      FallbackOp op = null;
      try {
        op = done.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
      if (op != null) {
        failure = deliver(op, failure);
      }
    }
    markClosed();
    if (inFlight() == 0) {
      for (Thread worker : workers) {
        worker.interrupt();
      }
      for (FileChannelFile file : List.copyOf(files)) {
        closeFile(file);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    CompletionFailures.rethrow(failure);
  }
}
