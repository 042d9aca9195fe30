package io.tidestore.store.testing;

import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * Injects device faults into a real queue, steered by a {@link FaultPlan} control file that the
 * test may rewrite at any moment. A faulted operation still goes to the device, so its completion
 * arrives the way every completion does (eventfd, listener), but changed:
 *
 * <ul>
 *   <li>a failing write becomes an fdatasync of its file (nothing lands) completing with EIO or
 *       ENOSPC; a failing read or sync runs and completes with EIO;
 *   <li>a short write writes its first half and reports that count; a short read likewise.
 * </ul>
 *
 * Unfaulted operations pass straight through. Owner thread only, like the queue it wraps.
 */
final class FaultInjectingQueue extends ForwardingIoQueue {
  private static final long RECHECK_NANOS = 20_000_000L;

  private final Path control;
  private FaultPlan plan = FaultPlan.NONE;
  private FileTime planTime;
  private long checkedAt;
  private boolean checkedOnce;

  FaultInjectingQueue(IoQueue delegate, Path control) {
    super(delegate);
    this.control = control;
  }

  @Override
  public String describe() {
    return "fault-injecting (" + control + ") " + delegate.describe();
  }

  private IoFault fault(IoOpException.Op op, IoFile file) {
    long now = System.nanoTime();
    if (!checkedOnce || now - checkedAt > RECHECK_NANOS) {
      checkedOnce = true;
      checkedAt = now;
      try {
        FileTime t = Files.exists(control) ? Files.getLastModifiedTime(control) : null;
        if (t == null ? planTime != null : !t.equals(planTime)) {
          planTime = t;
          plan = FaultPlan.read(control);
          System.err.println("FAULTS: plan now " + plan.rules());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return plan.faultFor(op, file.path().getFileName().toString());
  }

  /** The completion of a faulted operation: EIO/ENOSPC, or a short count. */
  private record Changed(
      IoCompletion inner, IoOpException.Op op, IoFault fault, long offset, long length)
      implements IoCompletion {
    @Override
    public void completed(long tag, int result) {
      if (fault == IoFault.SHORT) {
        inner.completed(tag, result);
      } else {
        inner.failed(
            tag, new IoOpException(op, fault.errno(), offset, length, "injected " + fault.name()));
      }
    }

    @Override
    public void failed(long tag, IoOpException error) {
      inner.failed(tag, error);
    }
  }

  /** The first half of {@code buffer}, in whole 4 KiB blocks (at least one when it has two). */
  private static MemorySegment half(MemorySegment buffer) {
    return buffer.asSlice(0, IoFault.shortLength(buffer.byteSize()));
  }

  private boolean writeFault(
      IoOpException.Op op, IoFile file, long offset, MemorySegment buffer, IoCompletion c, long t) {
    IoFault f = fault(op, file);
    if (f == null) {
      return false;
    }
    Changed changed = new Changed(c, op, f, offset, buffer.byteSize());
    if (f == IoFault.SHORT && buffer.byteSize() > 4096) {
      delegate.writeDurable(file, offset, half(buffer), changed, t);
    } else {
      // Nothing lands (a one-block write cannot be cut in half at O_DIRECT's granularity): an
      // fdatasync stands in, so the completion still arrives through the device's path.
      delegate.sync(file, changed, t);
    }
    return true;
  }

  @Override
  public void read(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    IoFault f = fault(IoOpException.Op.READ, file);
    if (f == null) {
      delegate.read(file, offset, buffer, c, tag);
      return;
    }
    Changed changed = new Changed(c, IoOpException.Op.READ, f, offset, buffer.byteSize());
    if (f == IoFault.SHORT && buffer.byteSize() <= 4096) {
      delegate.sync(file, changed, tag); // nothing transferred
    } else {
      delegate.read(file, offset, f == IoFault.SHORT ? half(buffer) : buffer, changed, tag);
    }
  }

  @Override
  public void write(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    if (!writeFault(IoOpException.Op.WRITE, file, offset, buffer, c, tag)) {
      delegate.write(file, offset, buffer, c, tag);
    }
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    if (!writeFault(IoOpException.Op.WRITE_DURABLE, file, offset, buffer, c, tag)) {
      delegate.writeDurable(file, offset, buffer, c, tag);
    }
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    if (writeFault(IoOpException.Op.WRITE_THEN_SYNC, file, offset, buffer, c, tag)) {
      return;
    }
    IoFault syncFault = fault(IoOpException.Op.SYNC, file);
    if (syncFault != null) {
      // The write lands in the page cache, its flush fails: what fsyncgate is about.
      delegate.write(
          file,
          offset,
          buffer,
          new Changed(c, IoOpException.Op.SYNC, syncFault, offset, buffer.byteSize()),
          tag);
    } else {
      delegate.writeThenSync(file, offset, buffer, c, tag);
    }
  }

  @Override
  public void sync(IoFile file, IoCompletion c, long tag) {
    IoFault f = fault(IoOpException.Op.SYNC, file);
    delegate.sync(file, f == null ? c : new Changed(c, IoOpException.Op.SYNC, f, 0, 0), tag);
  }
}
