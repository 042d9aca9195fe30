package io.tidestore.store.testing;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueFullException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link IoQueue} whose operations complete only when the test says so, in the order it says:
 * for asserting what a component issues and when (the journal's group-commit rules) rather than
 * what ends up on disk (that is {@link SimIoQueue}'s job). Reads return zeros; nothing is stored.
 * Test thread only.
 */
public final class ManualIoQueue implements IoQueue {
  /** One operation as issued. */
  public record Op(
      IoOpException.Op kind,
      IoFile file,
      long offset,
      long length,
      IoCompletion completion,
      long tag,
      boolean[] submitted) {
    public boolean isSubmitted() {
      return submitted[0];
    }
  }

  private final int capacity;
  private final List<Op> ops = new ArrayList<>();

  public ManualIoQueue(int capacity) {
    this.capacity = capacity;
  }

  /** Every operation issued and not yet completed, oldest first. */
  public List<Op> pending() {
    return List.copyOf(ops);
  }

  /** The submitted, not yet completed operations of {@code kind}, oldest first. */
  public List<Op> submitted(IoOpException.Op kind) {
    return ops.stream().filter(o -> o.kind() == kind && o.isSubmitted()).toList();
  }

  /** Completes {@code op} successfully with its full length. */
  public void complete(Op op) {
    take(op).completion().completed(op.tag(), (int) op.length());
  }

  /** Fails {@code op} with {@code errno}. */
  public void fail(Op op, int errno) {
    take(op)
        .completion()
        .failed(op.tag(), new IoOpException(op.kind(), errno, op.offset(), op.length(), "test"));
  }

  private Op take(Op op) {
    if (!op.isSubmitted() || !ops.remove(op)) {
      throw new IllegalStateException("not submitted or already completed: " + op);
    }
    return op;
  }

  private void add(IoOpException.Op kind, IoFile f, long off, long len, IoCompletion c, long tag) {
    if (ops.size() >= capacity) {
      throw new IoQueueFullException(capacity);
    }
    ops.add(new Op(kind, f, off, len, c, tag, new boolean[1]));
  }

  @Override
  public String describe() {
    return "manual test queue";
  }

  @Override
  public IoBackend backend() {
    return IoBackend.FILE_CHANNEL;
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) {
    return new IoFile() {
      @Override
      public Path path() {
        return path;
      }

      @Override
      public long size() {
        return Long.MAX_VALUE / 2;
      }

      @Override
      public boolean isBlockDevice() {
        return false;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    return false;
  }

  @Override
  public int alignment() {
    return 4096;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public int inFlight() {
    return ops.size();
  }

  @Override
  public void read(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    buffer.fill((byte) 0);
    add(IoOpException.Op.READ, file, offset, buffer.byteSize(), c, tag);
  }

  @Override
  public void write(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    add(IoOpException.Op.WRITE, file, offset, buffer.byteSize(), c, tag);
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    add(IoOpException.Op.WRITE_DURABLE, file, offset, buffer.byteSize(), c, tag);
  }

  @Override
  public void sync(IoFile file, IoCompletion c, long tag) {
    add(IoOpException.Op.SYNC, file, 0, 0, c, tag);
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    add(IoOpException.Op.WRITE_THEN_SYNC, file, offset, buffer.byteSize(), c, tag);
  }

  @Override
  public int submit() {
    int n = 0;
    for (Op op : ops) {
      if (!op.isSubmitted()) {
        op.submitted()[0] = true;
        n++;
      }
    }
    return n;
  }

  @Override
  public int poll() {
    return 0;
  }

  @Override
  public int await(long timeoutNanos) {
    submit();
    return 0;
  }

  @Override
  public int completionFd() {
    return -1;
  }

  @Override
  public void setCompletionListener(Runnable listener) {}

  @Override
  public void close() {}
}
