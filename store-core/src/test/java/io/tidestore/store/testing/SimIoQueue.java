package io.tidestore.store.testing;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueFullException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * The {@link IoQueue} of a {@link SimDisk}: honours the SPI's rules (owner thread, alignment,
 * capacity, exactly-once completion) and completes submitted operations in a random order, a random
 * number per poll, so batches overlap and finish out of order as on a real device. Injects device
 * faults ({@link #faultWhen}): EIO and ENOSPC on any kind of operation, short transfers. Owner
 * thread only.
 */
public final class SimIoQueue implements IoQueue {
  private static final int CAPACITY = 256;

  /** One operation; its effect happens at completion. */
  record Op(
      IoOpException.Op kind,
      SimDisk.SimFile file,
      Path path,
      long offset,
      MemorySegment buffer,
      byte[] snapshot,
      IoCompletion completion,
      long tag) {
    boolean isWrite() {
      return kind != IoOpException.Op.READ && kind != IoOpException.Op.SYNC;
    }

    byte[] bytes() {
      return snapshot;
    }
  }

  private final SimDisk disk;
  private final Random random;
  private final Thread owner = Thread.currentThread();
  private final List<Op> prepared = new ArrayList<>();
  private final List<Op> submitted = new ArrayList<>();
  private BiFunction<IoOpException.Op, Path, IoFault> faults = (kind, path) -> null;
  private boolean dead;

  SimIoQueue(SimDisk disk, long seed) {
    this.disk = disk;
    this.random = new Random(seed);
  }

  /** Fails (EIO) every later operation {@code when} matches. */
  public void failWhen(Predicate<IoOpException.Op> when) {
    faultWhen((kind, path) -> when.test(kind) ? IoFault.EIO : null);
  }

  /**
   * Injects the fault {@code rule} names (null: none) into every later operation, by kind and file:
   * EIO or ENOSPC fail it with nothing transferred, SHORT transfers its first half only.
   */
  public void faultWhen(BiFunction<IoOpException.Op, Path, IoFault> rule) {
    this.faults = rule;
  }

  List<Op> die() {
    dead = true;
    List<Op> all = new ArrayList<>(submitted);
    all.addAll(prepared);
    submitted.clear();
    prepared.clear();
    return all;
  }

  private void check() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("SimIoQueue used off its owner thread");
    }
    if (dead) {
      throw new IllegalStateException("the simulated machine crashed");
    }
  }

  @Override
  public String describe() {
    return "simulated power-cut disk";
  }

  @Override
  public IoBackend backend() {
    return IoBackend.FILE_CHANNEL;
  }

  private record SimHandle(Path path, SimDisk.SimFile file) implements IoFile {
    @Override
    public long size() {
      return file.size();
    }

    @Override
    public boolean isBlockDevice() {
      return false;
    }

    @Override
    public void close() {}
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    check();
    return new SimHandle(path, disk.file(path, mode == IoFile.Mode.CREATE));
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
    return CAPACITY;
  }

  @Override
  public int inFlight() {
    return prepared.size() + submitted.size();
  }

  private void prepare(
      IoOpException.Op kind, IoFile f, long offset, MemorySegment buf, IoCompletion c, long tag) {
    check();
    if (inFlight() >= CAPACITY) {
      throw new IoQueueFullException(CAPACITY);
    }
    SimHandle h = (SimHandle) f;
    byte[] snapshot =
        buf != null && kind != IoOpException.Op.READ ? buf.toArray(ValueLayout.JAVA_BYTE) : null;
    prepared.add(new Op(kind, h.file(), h.path(), offset, buf, snapshot, c, tag));
  }

  @Override
  public void read(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    prepare(IoOpException.Op.READ, file, offset, buffer, c, tag);
  }

  @Override
  public void write(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    prepare(IoOpException.Op.WRITE, file, offset, buffer, c, tag);
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    prepare(IoOpException.Op.WRITE_DURABLE, file, offset, buffer, c, tag);
  }

  @Override
  public void sync(IoFile file, IoCompletion c, long tag) {
    prepare(IoOpException.Op.SYNC, file, 0, null, c, tag);
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    prepare(IoOpException.Op.WRITE_THEN_SYNC, file, offset, buffer, c, tag);
  }

  @Override
  public int submit() {
    check();
    int n = prepared.size();
    submitted.addAll(prepared);
    prepared.clear();
    return n;
  }

  @Override
  public int poll() {
    check();
    if (submitted.isEmpty()) {
      return 0;
    }
    int n = 1 + random.nextInt(submitted.size());
    int done = 0;
    for (int i = 0; i < n && !submitted.isEmpty() && !dead; i++) {
      Op op = submitted.remove(random.nextInt(submitted.size()));
      complete(op);
      done++;
    }
    return done;
  }

  private void complete(Op op) {
    long len = op.buffer() == null ? 0 : op.buffer().byteSize();
    if (op.buffer() != null
        && (op.buffer().address() % 4096 != 0 || len % 4096 != 0 || op.offset() % 4096 != 0)) {
      op.completion()
          .failed(op.tag(), new IoOpException(op.kind(), 22, op.offset(), len, "EINVAL"));
      return;
    }
    IoFault fault = faults.apply(op.kind(), op.path());
    if (fault == IoFault.EIO || fault == IoFault.ENOSPC) {
      op.completion()
          .failed(
              op.tag(),
              new IoOpException(op.kind(), fault.errno(), op.offset(), len, fault.name()));
      return;
    }
    if (fault == IoFault.SHORT) {
      completeShort(op, IoFault.shortLength(len));
      return;
    }
    switch (op.kind()) {
      case READ -> {
        long avail = Math.max(0, Math.min(len, op.file().size() - op.offset()));
        MemorySegment.copy(
            MemorySegment.ofArray(op.file().visible), op.offset(), op.buffer(), 0, avail);
        op.completion().completed(op.tag(), (int) avail);
      }
      case WRITE -> {
        op.file().write(op.offset(), op.snapshot(), false);
        op.completion().completed(op.tag(), (int) len);
      }
      case WRITE_DURABLE, WRITE_THEN_SYNC -> {
        op.file().write(op.offset(), op.snapshot(), true);
        op.completion().completed(op.tag(), (int) len);
      }
      case SYNC -> {
        op.file().sync();
        op.completion().completed(op.tag(), 0);
      }
    }
  }

  /** Transfers only the first {@code n} bytes; a sync is unaffected. */
  private void completeShort(Op op, long n) {
    switch (op.kind()) {
      case READ -> {
        long avail = Math.max(0, Math.min(n, op.file().size() - op.offset()));
        MemorySegment.copy(
            MemorySegment.ofArray(op.file().visible), op.offset(), op.buffer(), 0, avail);
        op.completion().completed(op.tag(), (int) avail);
      }
      case WRITE, WRITE_DURABLE, WRITE_THEN_SYNC -> {
        if (n > 0) {
          op.file()
              .write(
                  op.offset(),
                  java.util.Arrays.copyOf(op.snapshot(), (int) n),
                  op.kind() != IoOpException.Op.WRITE);
        }
        op.completion().completed(op.tag(), (int) n);
      }
      case SYNC -> {
        op.file().sync();
        op.completion().completed(op.tag(), 0);
      }
    }
  }

  @Override
  public int await(long timeoutNanos) {
    submit();
    return poll();
  }

  @Override
  public int completionFd() {
    return -1;
  }

  @Override
  public void setCompletionListener(Runnable listener) {}

  @Override
  public void close() {
    if (dead) {
      return;
    }
    List<Op> all = die();
    for (Op op : all) {
      op.completion()
          .failed(op.tag(), new IoOpException(op.kind(), 125, op.offset(), 0, "queue closed"));
    }
  }
}
