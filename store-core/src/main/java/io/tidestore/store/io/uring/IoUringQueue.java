package io.tidestore.store.io.uring;

import static io.tidestore.store.io.uring.IoUringAbi.IORING_ENTER_EXT_ARG;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_ENTER_GETEVENTS;

import io.tidestore.store.io.AlignedBufferPool;
import io.tidestore.store.io.DirectIo;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.IoQueueFullException;
import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The io_uring backend of {@link IoQueue}. Owner thread only (checked), see {@link IoQueue}.
 *
 * <p>Sizing: a ring of {@code 2 * capacity} SQEs and CQEs, because one operation takes at most two
 * (a linked write + fdatasync); so with at most {@code capacity} operations in flight neither ring
 * can overflow. Per-operation state lives in preallocated arrays indexed by slot; the CQE's
 * user_data packs (slot, part, opcode), see {@link UserData}.
 */
final class IoUringQueue implements IoQueue, CompletionQueue.Handler {
  private static final System.Logger LOG = System.getLogger(IoUringQueue.class.getName());

  private final Thread owner;
  private final IoQueueConfig config;
  private final Libc libc;
  private final Arena arena;
  private final Ring ring;
  private final int capacity;
  private final boolean deferTaskrun;
  private final int eventFd;
  private final String reason;

  // Per-slot bookkeeping, preallocated.
  private final IoCompletion[] completions;
  private final IoUringFile[] slotFiles;
  private final long[] tags;
  private final long[] offsets;
  private final int[] lengths;
  private final IoOpException.Op[] ops;
  private final int[] pendingCqes;
  private final int[] mainRes;
  private final int[] syncRes;
  private final int[] freeSlots;
  private int freeCount;
  private final int[] preparedSlots;
  private int preparedCount;
  private final int[] readySlots;
  private int readyCount;

  /** CQEs the last {@link #deliverReady()} took from the ring (finished ops or not). */
  private int lastReapedCqes;

  private int inFlight;

  // Registered files: a sparse table of maxFiles slots, or plain fds when registration failed.
  private final IoUringFile[] fileTable;
  private final boolean filesRegistered;
  private int openFiles;

  // Registered buffer regions, looked up by address for READ_FIXED/WRITE_FIXED.
  private long[] regionStart = new long[0];
  private long[] regionEnd = new long[0];

  // Preallocated io_uring_getevents_arg + __kernel_timespec for timed waits.
  private final MemorySegment waitArg;
  private final MemorySegment waitTimespec;
  private final MemorySegment scratch;

  private final int ioWorkers;

  /** Open {@link #beginBatch} calls, and whether a {@link #submit} came in meanwhile. */
  private int batchDepth;

  private boolean submitHeld;
  private int lastOverflow;
  private long overflowFlushes;
  private boolean delivering;
  private boolean closing;
  private boolean closed;

  IoUringQueue(IoQueueConfig config, Libc libc, Syscalls sys, String reason)
      throws IoUringSetupException {
    this.owner = Thread.currentThread();
    this.config = config;
    this.libc = libc;
    this.reason = reason;
    this.capacity = config.capacity();
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
    this.completions = new IoCompletion[capacity];
    this.slotFiles = new IoUringFile[capacity];
    this.tags = new long[capacity];
    this.offsets = new long[capacity];
    this.lengths = new int[capacity];
    this.ops = new IoOpException.Op[capacity];
    this.pendingCqes = new int[capacity];
    this.mainRes = new int[capacity];
    this.syncRes = new int[capacity];
    this.freeSlots = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      freeSlots[i] = capacity - 1 - i;
    }
    this.freeCount = capacity;
    this.preparedSlots = new int[capacity];
    this.readySlots = new int[capacity];
    this.waitArg = arena.allocate(ParamsLayout.GETEVENTS_ARG_SIZE, 8);
    this.waitTimespec = arena.allocate(ParamsLayout.TIMESPEC_SIZE, 8);
    waitArg.set(ValueLayout.JAVA_LONG, ParamsLayout.GETEVENTS_ARG_TS, waitTimespec.address());
    this.scratch = arena.allocate(ParamsLayout.FILES_UPDATE_SIZE + 8, 8);
    this.fileTable = new IoUringFile[config.maxFiles()];
    this.filesRegistered = registerFileTable(config.maxFiles());
    this.ioWorkers = raiseIoWorkerCap(capacity);
    this.eventFd = createEventFd();
  }

  /** A sparse table of -1 entries, filled by IORING_REGISTER_FILES_UPDATE as files open. */
  private boolean registerFileTable(int size) {
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment fds = temp.allocate(ValueLayout.JAVA_INT, size);
      fds.fill((byte) -1);
      int rc =
          ring.sys.ioUringRegister(
              ring.state, ring.fd, IoUringAbi.IORING_REGISTER_FILES, fds.address(), size);
      if (rc < 0) {
        LOG.log(
            System.Logger.Level.INFO,
            "io_uring file registration refused ({0}); using plain fds",
            Errno.name(-rc));
        return false;
      }
      return true;
    }
  }

  /**
   * Blocking work (every fdatasync, writes the kernel cannot issue without waiting) runs on the
   * ring's io-wq workers, whose "bounded" pool defaults to 4 per CPU (io_uring/io-wq.c): on a small
   * machine that caps a depth-32 queue of syncs at 8. Raise it to the queue's capacity
   * (IORING_REGISTER_IOWQ_MAX_WORKERS, 5.15; values[1] = 0 keeps the unbounded pool as is). Best
   * effort: returns the cap in effect, 0 when the kernel refused.
   */
  private int raiseIoWorkerCap(int workers) {
    scratch.set(ValueLayout.JAVA_INT, 0, workers);
    scratch.set(ValueLayout.JAVA_INT, 4, 0);
    int rc =
        ring.sys.ioUringRegister(
            ring.state, ring.fd, IoUringAbi.IORING_REGISTER_IOWQ_MAX_WORKERS, scratch.address(), 2);
    if (rc < 0) {
      LOG.log(
          System.Logger.Level.INFO,
          "io_uring io-wq worker cap not raised ({0}); blocking ops share the default pool",
          Errno.name(-rc));
      return 0;
    }
    return workers;
  }

  /** An eventfd the kernel signals on every posted CQE (IORING_REGISTER_EVENTFD). */
  private int createEventFd() throws IoUringSetupException {
    int fd = ring.sys.eventfd(ring.state);
    if (fd < 0) {
      closeRing();
      throw new IoUringSetupException("eventfd", -fd);
    }
    scratch.set(ValueLayout.JAVA_INT, 0, fd);
    int rc =
        ring.sys.ioUringRegister(
            ring.state, ring.fd, IoUringAbi.IORING_REGISTER_EVENTFD, scratch.address(), 1);
    if (rc < 0) {
      Ring.closeQuietly(fd);
      closeRing();
      throw new IoUringSetupException("IORING_REGISTER_EVENTFD", -rc);
    }
    return fd;
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
        + (filesRegistered ? "on" : "off")
        + ", registered buffers "
        + (regionStart.length > 0 ? regionStart.length + " regions" : "none")
        + ", io-wq bounded workers "
        + (ioWorkers > 0 ? String.valueOf(ioWorkers) : "default")
        + ", eventfd "
        + eventFd
        + (config.pollMode() ? ", poll mode (spinning)" : "")
        + ", capacity "
        + capacity;
  }

  @Override
  public IoBackend backend() {
    return IoBackend.IO_URING;
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    checkOwner();
    checkOpen();
    if (openFiles >= fileTable.length) {
      throw new IOException("too many open files on this queue: " + fileTable.length);
    }
    int flags =
        switch (mode) {
          case READ -> Libc.O_RDONLY;
          case READ_WRITE -> Libc.O_RDWR;
          case CREATE -> Libc.O_RDWR | Libc.O_CREAT;
        };
    int fd = libc.open(path.toString(), flags | Libc.O_DIRECT | Libc.O_CLOEXEC, 0644);
    int index = -1;
    for (int i = 0; i < fileTable.length; i++) {
      if (fileTable[i] == null) {
        index = i;
        break;
      }
    }
    boolean blockDevice;
    try {
      blockDevice = DirectIo.isBlockDevice(path);
    } catch (IOException | RuntimeException e) {
      libc.close(fd);
      throw e;
    }
    int fixed = filesRegistered && updateFileSlot(index, fd) ? index : -1;
    IoUringFile file = new IoUringFile(this, path, blockDevice, fd, fixed);
    fileTable[index] = file;
    openFiles++;
    return file;
  }

  /** IORING_REGISTER_FILES_UPDATE of one slot; {@code fd} -1 empties it. */
  private boolean updateFileSlot(int index, int fd) {
    scratch.set(ValueLayout.JAVA_INT, 0, index);
    scratch.set(ValueLayout.JAVA_INT, 4, 0);
    scratch.set(ValueLayout.JAVA_LONG, 8, scratch.address() + ParamsLayout.FILES_UPDATE_SIZE);
    scratch.set(ValueLayout.JAVA_INT, ParamsLayout.FILES_UPDATE_SIZE, fd);
    int rc =
        ring.sys.ioUringRegister(
            ring.state, ring.fd, IoUringAbi.IORING_REGISTER_FILES_UPDATE, scratch.address(), 1);
    return rc == 1;
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

  void closeFile(IoUringFile file) {
    checkOwner();
    if (!file.isOpen()) {
      return;
    }
    if (file.inFlight > 0) {
      throw new IllegalStateException(
          file.inFlight + " operations still in flight on " + file + "; close after they complete");
    }
    for (int i = 0; i < fileTable.length; i++) {
      if (fileTable[i] == file) {
        fileTable[i] = null;
        if (file.fixedIndex >= 0) {
          updateFileSlot(i, -1);
        }
      }
    }
    openFiles--;
    int fd = file.fd;
    file.fd = -1;
    file.fixedIndex = -1;
    try {
      libc.close(fd);
    } catch (NativeException e) {
      LOG.log(System.Logger.Level.WARNING, "closing " + file.path(), e);
    }
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    checkOwner();
    checkOpen();
    if (inFlight > 0) {
      throw new IllegalStateException("register buffers with no operation in flight");
    }
    for (MemorySegment region : regions) {
      DirectIo.checkBuffer(region, false);
      if (region.byteSize() > (1L << 30)) {
        throw new IllegalArgumentException("a registered region is at most 1 GiB: " + region);
      }
    }
    if (regionStart.length > 0) {
      ring.sys.ioUringRegister(ring.state, ring.fd, IoUringAbi.IORING_UNREGISTER_BUFFERS, 0, 0);
      regionStart = new long[0];
      regionEnd = new long[0];
    }
    int rc;
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment iovecs = temp.allocate((long) ParamsLayout.IOVEC_SIZE * regions.length, 8);
      for (int i = 0; i < regions.length; i++) {
        iovecs.set(ValueLayout.JAVA_LONG, (long) i * ParamsLayout.IOVEC_SIZE, regions[i].address());
        iovecs.set(
            ValueLayout.JAVA_LONG, (long) i * ParamsLayout.IOVEC_SIZE + 8, regions[i].byteSize());
      }
      rc =
          ring.sys.ioUringRegister(
              ring.state,
              ring.fd,
              IoUringAbi.IORING_REGISTER_BUFFERS,
              iovecs.address(),
              regions.length);
    }
    if (rc < 0) {
      // ENOMEM under RLIMIT_MEMLOCK is the usual cause: the queue keeps working unregistered.
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring buffer registration refused ({0}); I/O continues with unregistered buffers",
          Errno.name(-rc));
      return false;
    }
    long[] start = new long[regions.length];
    long[] end = new long[regions.length];
    for (int i = 0; i < regions.length; i++) {
      start[i] = regions[i].address();
      end[i] = start[i] + regions[i].byteSize();
    }
    regionStart = start;
    regionEnd = end;
    return true;
  }

  /** The registered region holding [address, address + length), or -1. */
  private int bufferIndex(long address, long length) {
    long[] start = regionStart;
    for (int i = 0; i < start.length; i++) {
      if (address >= start[i] && address + length <= regionEnd[i]) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public int alignment() {
    return AlignedBufferPool.ALIGNMENT;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public void read(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, true);
    prepareRw(IoOpException.Op.READ, file, offset, buffer, completion, tag);
  }

  @Override
  public void write(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    prepareRw(IoOpException.Op.WRITE, file, offset, buffer, completion, tag);
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    prepareRw(IoOpException.Op.WRITE_DURABLE, file, offset, buffer, completion, tag);
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion completion, long tag) {
    DirectIo.checkBuffer(buffer, false);
    prepareRw(IoOpException.Op.WRITE_THEN_SYNC, file, offset, buffer, completion, tag);
  }

  @Override
  public void sync(IoFile file, IoCompletion completion, long tag) {
    IoUringFile f = checkPrepare(file, 0);
    int slot = takeSlot(IoOpException.Op.SYNC, f, 0, 0, completion, tag, 1);
    addFsync(f, slot, (byte) 0, UserData.PART_MAIN);
  }

  private void prepareRw(
      IoOpException.Op op,
      IoFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    IoUringFile f = checkPrepare(file, offset);
    int length = (int) buffer.byteSize();
    boolean linked = op == IoOpException.Op.WRITE_THEN_SYNC;
    int slot = takeSlot(op, f, offset, length, completion, tag, linked ? 2 : 1);
    long address = buffer.address();
    int region = bufferIndex(address, length);
    boolean isRead = op == IoOpException.Op.READ;
    byte opcode;
    if (region >= 0) {
      opcode = isRead ? IoUringAbi.IORING_OP_READ_FIXED : IoUringAbi.IORING_OP_WRITE_FIXED;
    } else {
      opcode = isRead ? IoUringAbi.IORING_OP_READ : IoUringAbi.IORING_OP_WRITE;
    }
    int rwFlags = op == IoOpException.Op.WRITE_DURABLE ? IoUringAbi.RWF_DSYNC : 0;
    byte flags = fileFlags(f);
    if (linked) {
      flags |= IoUringAbi.IOSQE_IO_LINK;
    }
    ring.sq.add(
        opcode,
        flags,
        fileDescriptor(f),
        offset,
        address,
        length,
        rwFlags,
        UserData.pack(slot, UserData.PART_MAIN, opcode),
        (short) Math.max(region, 0));
    if (linked) {
      addFsync(f, slot, (byte) 0, UserData.PART_SYNC);
    }
  }

  private void addFsync(IoUringFile f, int slot, byte extraFlags, int part) {
    ring.sq.add(
        IoUringAbi.IORING_OP_FSYNC,
        (byte) (fileFlags(f) | extraFlags),
        fileDescriptor(f),
        0,
        0,
        0,
        IoUringAbi.IORING_FSYNC_DATASYNC,
        UserData.pack(slot, part, IoUringAbi.IORING_OP_FSYNC),
        (short) 0);
  }

  private static byte fileFlags(IoUringFile f) {
    return f.fixedIndex >= 0 ? IoUringAbi.IOSQE_FIXED_FILE : 0;
  }

  /** The slot with IOSQE_FIXED_FILE, else the fd; -1 (EBADF from the kernel) once closed. */
  private static int fileDescriptor(IoUringFile f) {
    return f.fixedIndex >= 0 ? f.fixedIndex : f.fd;
  }

  private IoUringFile checkPrepare(IoFile file, long offset) {
    checkOwner();
    if (closing) {
      throw new IllegalStateException("queue is closing");
    }
    if (!(file instanceof IoUringFile f) || f.queue() != this) {
      throw new IllegalArgumentException("file was not opened by this queue: " + file);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset);
    }
    if (freeCount == 0) {
      throw new IoQueueFullException(capacity);
    }
    return f;
  }

  private int takeSlot(
      IoOpException.Op op,
      IoUringFile file,
      long offset,
      int length,
      IoCompletion completion,
      long tag,
      int cqes) {
    int slot = freeSlots[--freeCount];
    completions[slot] = completion;
    slotFiles[slot] = file;
    tags[slot] = tag;
    offsets[slot] = offset;
    lengths[slot] = length;
    ops[slot] = op;
    pendingCqes[slot] = cqes;
    mainRes[slot] = 0;
    syncRes[slot] = 0;
    preparedSlots[preparedCount++] = slot;
    file.inFlight++;
    inFlight++;
    return slot;
  }

  @Override
  public int submit() throws IOException {
    checkOwner();
    checkOpen();
    if (batchDepth > 0) {
      submitHeld = true;
      return 0;
    }
    int count = preparedCount;
    ring.sq.publish();
    preparedCount = 0;
    enter(0, 0);
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

  /**
   * One io_uring_enter: submits every published, unconsumed SQE and, with {@code flags} GETEVENTS,
   * runs completion work (DEFER_TASKRUN) and waits for {@code minComplete}.
   */
  private int enter(int minComplete, int flags) throws IOException {
    return enter(minComplete, flags, 0, 0);
  }

  private int enter(int minComplete, int flags, long arg, long argSize) throws IOException {
    while (true) {
      int toSubmit = ring.sq.unconsumed();
      if (toSubmit == 0 && flags == 0) {
        return 0;
      }
      int rc =
          ring.sys.ioUringEnter(ring.state, ring.fd, toSubmit, minComplete, flags, arg, argSize);
      if (rc >= 0) {
        return rc;
      }
      switch (-rc) {
        case Errno.EINTR -> {
          if ((flags & IORING_ENTER_GETEVENTS) != 0) {
            return 0; // a wait cut short is just an early return
          }
        }
        case Errno.ETIME, Errno.EAGAIN, Errno.EBUSY -> {
          // ETIME: the wait timed out. EAGAIN/EBUSY: the kernel is short of resources or has
          // overflowed completions to flush; the SQEs stay published and go with the next enter.
          return 0;
        }
        default -> throw new NativeException("io_uring_enter(" + toSubmit + " SQEs)", -rc);
      }
    }
  }

  @Override
  public int poll() {
    checkOwner();
    if (delivering || closed) {
      return 0;
    }
    // Completions often prepare the next I/O (a journal seals the batch that waited for a write):
    // what they prepare goes to the kernel together, in one enter once all are delivered.
    beginBatch();
    try {
      return deliverCompletions();
    } finally {
      try {
        endBatch();
      } catch (IOException e) {
        // The SQEs stay published and go with the next enter; only a broken ring fails here.
        LOG.log(System.Logger.Level.ERROR, "io_uring submit after completions failed", e);
      }
    }
  }

  private int deliverCompletions() {
    if (!deferTaskrun) {
      if (needsFlush()) {
        enterQuietly();
      }
      return deliverReady();
    }
    // DEFER_TASKRUN: CQEs are posted only when the owner enters with GETEVENTS, and the kernel
    // runs a bounded batch of completion work per enter (io_run_local_work), signalling the
    // eventfd only when work lands on an empty list. So keep entering until a pass posts no CQE
    // at all and the kernel flags no pending work (IORING_SQ_TASKRUN): then nothing is left
    // over, and the next completion signals the eventfd again. Counting finished ops instead of
    // CQEs is not enough: a pass may post only the first halves of linked pairs, finish no op,
    // and leave the second halves behind its bound with no signal to come.
    int delivered = 0;
    while (inFlight - preparedCount > 0) {
      enterQuietly();
      delivered += deliverReady();
      if (lastReapedCqes == 0 && (ring.sq.flags() & IoUringAbi.IORING_SQ_TASKRUN) == 0) {
        break;
      }
    }
    return delivered;
  }

  private void enterQuietly() {
    try {
      enter(0, IORING_ENTER_GETEVENTS);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.ERROR, "io_uring_enter to reap failed", e);
    }
  }

  /** Overflowed CQEs wait in the kernel until an enter with GETEVENTS flushes them. */
  private boolean needsFlush() {
    if ((ring.sq.flags() & IoUringAbi.IORING_SQ_CQ_OVERFLOW) != 0) {
      overflowFlushes++;
      LOG.log(
          System.Logger.Level.WARNING,
          "io_uring CQ overflowed ({0} times); flushing (in-flight cap should prevent this)",
          overflowFlushes);
      return true;
    }
    return false;
  }

  @Override
  public int await(long timeoutNanos) throws IOException {
    checkOwner();
    checkOpen();
    ring.sq.publish();
    preparedCount = 0;
    if (inFlight == 0 || ring.cq.ready() > 0) {
      enter(0, deferTaskrun ? IORING_ENTER_GETEVENTS : 0);
      return deliverReady();
    }
    long timeout = Math.max(0, timeoutNanos);
    if (config.pollMode()) {
      enter(0, 0);
      long deadline = System.nanoTime() + timeout;
      while (true) {
        int n = poll();
        if (n > 0 || System.nanoTime() - deadline >= 0) {
          return n;
        }
        Thread.onSpinWait();
      }
    }
    waitTimespec.set(ValueLayout.JAVA_LONG, 0, timeout / 1_000_000_000L);
    waitTimespec.set(ValueLayout.JAVA_LONG, 8, timeout % 1_000_000_000L);
    enter(
        1,
        IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
        waitArg.address(),
        ParamsLayout.GETEVENTS_ARG_SIZE);
    return deliverReady();
  }

  /** Reaps every ready CQE into the ready list, then delivers (callbacks may prepare more). */
  private int deliverReady() {
    if (delivering) {
      lastReapedCqes = 0;
      return 0;
    }
    int overflow = ring.cq.overflow();
    if (overflow != lastOverflow) {
      LOG.log(
          System.Logger.Level.ERROR,
          "io_uring CQ overflow counter is {0}: the kernel dropped completions",
          overflow);
      lastOverflow = overflow;
    }
    readyCount = 0;
    lastReapedCqes = ring.cq.reap(this);
    int n = readyCount;
    delivering = true;
    try {
      for (int i = 0; i < n; i++) {
        deliver(readySlots[i]);
      }
    } finally {
      delivering = false;
      readyCount = 0;
    }
    return n;
  }

  /** One CQE: records its result; the slot is ready once all its CQEs arrived. */
  @Override
  public void handle(long userData, int res, int flags) {
    int slot = UserData.slot(userData);
    if (UserData.part(userData) == UserData.PART_SYNC) {
      syncRes[slot] = res;
    } else {
      mainRes[slot] = res;
    }
    if (--pendingCqes[slot] == 0) {
      readySlots[readyCount++] = slot;
    }
  }

  private void deliver(int slot) {
    IoCompletion completion = completions[slot];
    long tag = tags[slot];
    IoOpException.Op op = ops[slot];
    int res = mainRes[slot];
    IoOpException error = null;
    if (res < 0) {
      error = error(op, slot, -res, null);
    } else if (op == IoOpException.Op.WRITE_THEN_SYNC) {
      if (res != lengths[slot]) {
        // A short write breaks the link: the kernel cancels the fdatasync (io_uring(7), IO_LINK).
        error =
            error(op, slot, Errno.EIO, "short write " + res + " of " + lengths[slot] + " bytes");
      } else if (syncRes[slot] < 0) {
        error = error(op, slot, -syncRes[slot], "fdatasync after the write");
      }
    }
    release(slot);
    if (error == null) {
      completion.completed(tag, res);
    } else {
      completion.failed(tag, error);
    }
  }

  private IoOpException error(IoOpException.Op op, int slot, int errno, String what) {
    String text = libc.strerror(errno);
    return new IoOpException(
        op, errno, offsets[slot], lengths[slot], what == null ? text : what + ": " + text);
  }

  private void release(int slot) {
    completions[slot] = null;
    slotFiles[slot].inFlight--;
    slotFiles[slot] = null;
    freeSlots[freeCount++] = slot;
    inFlight--;
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
    if (closed) {
      return;
    }
    closing = true;
    // Prepared, never published: the kernel never saw them.
    int unpublished = preparedCount;
    ring.sq.discardUnpublished();
    preparedCount = 0;
    for (int i = 0; i < unpublished; i++) {
      int slot = preparedSlots[i];
      IoCompletion completion = completions[slot];
      long tag = tags[slot];
      IoOpException error =
          error(ops[slot], slot, Errno.ECANCELED, "queue closed before submission");
      release(slot);
      completion.failed(tag, error);
    }
    // Published: the kernel may be reading or writing their buffers; wait for every CQE before
    // the rings go and the caller frees its buffers.
    long deadline = System.nanoTime() + config.closeTimeout().toNanos();
    while (inFlight > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      long wait = Math.min(left, 100_000_000L);
      waitTimespec.set(ValueLayout.JAVA_LONG, 0, 0L);
      waitTimespec.set(ValueLayout.JAVA_LONG, 8, wait);
      try {
        enter(
            1,
            IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
            waitArg.address(),
            ParamsLayout.GETEVENTS_ARG_SIZE);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.ERROR, "io_uring_enter while closing", e);
        break;
      }
      deliverReady();
    }
    closed = true;
    if (inFlight > 0) {
      // Unmapping now would not hurt the kernel, but the caller would free buffers it still
      // writes; keep everything and say so.
      LOG.log(
          System.Logger.Level.ERROR,
          "io_uring queue closed with {0} operations the kernel has not completed after {1};"
              + " leaving the ring open",
          inFlight,
          config.closeTimeout());
      return;
    }
    for (IoUringFile file : fileTable) {
      if (file != null) {
        closeFile(file);
      }
    }
    Ring.closeQuietly(eventFd);
    closeRing();
  }

  private void closeRing() {
    ring.close();
    arena.close();
  }

  private void checkOwner() {
    if (!owner.equals(Thread.currentThread())) {
      throw new WrongThreadException("I/O queue is owned by " + owner.getName());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("queue is closed");
    }
  }
}
