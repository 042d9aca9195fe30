package io.tidestore.store.testing;

import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import java.lang.foreign.MemorySegment;

/**
 * Records in an {@link UndoLog} what a power cut could still take back from the writes passing
 * through a real queue. Every kind of write the {@link IoQueue} interface has is logged before it
 * is passed down; it becomes durable, by this layer's own account, only
 *
 * <ul>
 *   <li>when it completes whole as a {@link #writeDurable} (RWF_DSYNC) or a {@link #writeThenSync}
 *       (its linked fdatasync ran after it), or
 *   <li>when a {@link #sync} of the same file completes that was issued after the write's
 *       completion had been delivered (an fdatasync flushes only what completed before it).
 * </ul>
 *
 * A plain {@link #write}, a failed or short one, and one whose only sync was issued while it was in
 * flight stay revertible. Reads pass straight through. A test fixture: each operation allocates
 * (its old bytes, a completion wrapper), which no production path may.
 */
final class UndoLoggingQueue extends ForwardingIoQueue {
  private final UndoLog log;

  UndoLoggingQueue(IoQueue delegate, UndoLog log) {
    super(delegate);
    this.log = log;
  }

  @Override
  public String describe() {
    return "power-loss undo log (" + log.file() + ") " + delegate.describe();
  }

  /** A write's completion: durable or merely completed, then the store hears of it. */
  private record Logged(IoCompletion inner, UndoLog log, long id, long length, boolean durable)
      implements IoCompletion {
    @Override
    public void completed(long tag, int result) {
      if (durable && result == length) {
        log.durable(id);
      } else {
        log.completed(id);
      }
      inner.completed(tag, result);
    }

    @Override
    public void failed(long tag, IoOpException error) {
      log.completed(id); // part of it may have landed: a later sync would make that durable
      inner.failed(tag, error);
    }
  }

  /** A sync's completion: every write it covered is durable, then the store hears of it. */
  private static final class Synced implements IoCompletion {
    private final IoCompletion inner;
    private final UndoLog log;
    private final long[] covered;

    Synced(IoCompletion inner, UndoLog log, long[] covered) {
      this.inner = inner;
      this.log = log;
      this.covered = covered;
    }

    @Override
    public void completed(long tag, int result) {
      log.durable(covered);
      inner.completed(tag, result);
    }

    @Override
    public void failed(long tag, IoOpException error) {
      inner.failed(tag, error);
    }
  }

  /** Passes a logged write down, its completion wrapped. */
  @FunctionalInterface
  private interface Down {
    void pass(Logged completion);
  }

  /** Logs the write's old bytes, then passes it down; a refused one is nothing to wait for. */
  private void logThenPass(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, boolean durable, Down down) {
    long length = buffer.byteSize();
    Logged l = new Logged(c, log, log.before(file.path(), offset, length), length, durable);
    try {
      down.pass(l);
    } catch (RuntimeException refused) {
      log.completed(l.id()); // never went down: nothing to revert (its old bytes are current)
      throw refused;
    }
  }

  @Override
  public void write(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    logThenPass(file, offset, buffer, c, false, l -> delegate.write(file, offset, buffer, l, tag));
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    logThenPass(
        file, offset, buffer, c, true, l -> delegate.writeDurable(file, offset, buffer, l, tag));
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    logThenPass(
        file, offset, buffer, c, true, l -> delegate.writeThenSync(file, offset, buffer, l, tag));
  }

  @Override
  public void sync(IoFile file, IoCompletion c, long tag) {
    // Taken when the sync is prepared, before it is submitted: only writes whose completion was
    // delivered by now are certainly covered.
    delegate.sync(file, new Synced(c, log, log.completedOn(file.path())), tag);
  }
}
