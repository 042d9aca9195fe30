package io.tidestore.store.io.uring;

import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_COOP_TASKRUN;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_CQSIZE;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_DEFER_TASKRUN;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_SINGLE_ISSUER;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_SUBMIT_ALL;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_SETUP_TASKRUN_FLAG;

import io.tidestore.store.io.Errno;
import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * One io_uring instance: the fd, its mmapped rings and the setup flags the kernel accepted. Created
 * and closed on the owner thread (SINGLE_ISSUER binds the ring to the creating task).
 */
final class Ring {
  private static final System.Logger LOG = System.getLogger(Ring.class.getName());

  /**
   * Setup flag sets, best first. The kernel answers EINVAL to a flag it does not know (or a
   * combination it refuses: DEFER_TASKRUN needs SINGLE_ISSUER, io_uring_setup(2)), so each is tried
   * in turn. DEFER_TASKRUN (6.1) runs completion work only when the owner enters the kernel, the
   * cheapest mode for a thread-per-core loop; COOP_TASKRUN (5.19) avoids interrupting the owner;
   * SUBMIT_ALL (5.18) keeps submitting past a failed SQE; SINGLE_ISSUER (6.0) lets the kernel skip
   * submission locking. TASKRUN_FLAG makes the kernel raise IORING_SQ_TASKRUN when work waits.
   */
  private static final int[] PROBE_WITH_DEFER = {
    IORING_SETUP_SINGLE_ISSUER
        | IORING_SETUP_DEFER_TASKRUN
        | IORING_SETUP_TASKRUN_FLAG
        | IORING_SETUP_SUBMIT_ALL,
    IORING_SETUP_SINGLE_ISSUER
        | IORING_SETUP_COOP_TASKRUN
        | IORING_SETUP_TASKRUN_FLAG
        | IORING_SETUP_SUBMIT_ALL,
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SUBMIT_ALL,
    IORING_SETUP_SUBMIT_ALL,
    0
  };

  private static final int[] PROBE_WITHOUT_DEFER = {
    PROBE_WITH_DEFER[1], PROBE_WITH_DEFER[2], PROBE_WITH_DEFER[3], PROBE_WITH_DEFER[4]
  };

  final Syscalls sys;
  final MemorySegment state;
  final int fd;
  final int setupFlags;
  final int features;
  final SubmissionQueue sq;
  final CompletionQueue cq;
  private final long sqRingAddress;
  private final long sqRingSize;
  private final long cqRingAddress;
  private final long cqRingSize;
  private final boolean cqRingShared;
  private final long sqesAddress;
  private final long sqesSize;

  private Ring(Syscalls sys, MemorySegment state, int fd, MemorySegment params, long[] maps) {
    this.sys = sys;
    this.state = state;
    this.fd = fd;
    this.setupFlags = params.get(ValueLayout.JAVA_INT, ParamsLayout.FLAGS);
    this.features = params.get(ValueLayout.JAVA_INT, ParamsLayout.FEATURES);
    this.sqRingAddress = maps[0];
    this.sqRingSize = maps[1];
    this.cqRingAddress = maps[2];
    this.cqRingSize = maps[3];
    this.cqRingShared = maps[2] == maps[0];
    this.sqesAddress = maps[4];
    this.sqesSize = maps[5];
    MemorySegment sqRing = MemorySegment.ofAddress(sqRingAddress).reinterpret(sqRingSize);
    MemorySegment cqRing = MemorySegment.ofAddress(cqRingAddress).reinterpret(cqRingSize);
    MemorySegment sqes = MemorySegment.ofAddress(sqesAddress).reinterpret(sqesSize);
    this.sq = new SubmissionQueue(sqRing, sqes, params);
    this.cq = new CompletionQueue(cqRing, params);
  }

  /**
   * Sets up a ring with {@code sqEntries} SQEs and {@code cqEntries} CQEs (powers of two), trying
   * the flag sets in order. {@code state} is the owner's errno call-state segment.
   */
  static Ring setup(
      Syscalls sys, Arena arena, MemorySegment state, int sqEntries, int cqEntries, boolean defer)
      throws IoUringSetupException {
    MemorySegment params = arena.allocate(ParamsLayout.LAYOUT);
    int[] probes = defer ? PROBE_WITH_DEFER : PROBE_WITHOUT_DEFER;
    int fd = -Errno.EINVAL;
    for (int flags : probes) {
      params.fill((byte) 0);
      params.set(ValueLayout.JAVA_INT, ParamsLayout.FLAGS, flags | IORING_SETUP_CQSIZE);
      params.set(ValueLayout.JAVA_INT, ParamsLayout.CQ_ENTRIES, cqEntries);
      fd = sys.ioUringSetup(state, sqEntries, params);
      if (fd != -Errno.EINVAL) {
        break;
      }
    }
    if (fd < 0) {
      throw new IoUringSetupException("io_uring_setup(" + sqEntries + ")", -fd);
    }
    int features = params.get(ValueLayout.JAVA_INT, ParamsLayout.FEATURES);
    int missing = IoUringAbi.IORING_FEAT_NODROP | IoUringAbi.IORING_FEAT_EXT_ARG;
    if ((features & missing) != missing) {
      closeQuietly(fd);
      // NODROP (5.5) keeps overflowed CQEs instead of losing them; EXT_ARG (5.11) gives
      // io_uring_enter a timeout. Without them the queue cannot keep its contract.
      throw new IoUringSetupException(
          "kernel lacks IORING_FEAT_NODROP/IORING_FEAT_EXT_ARG (features 0x"
              + Integer.toHexString(features)
              + ")",
          Errno.ENOSYS);
    }
    long[] maps;
    try {
      maps = map(sys, state, fd, params);
    } catch (IoUringSetupException e) {
      closeQuietly(fd);
      throw e;
    }
    return new Ring(sys, state, fd, params, maps);
  }

  /**
   * mmaps the SQ ring, CQ ring and SQE array (io_uring_setup(2), "mmap"). With
   * IORING_FEAT_SINGLE_MMAP (5.4) both rings share one mapping at IORING_OFF_SQ_RING.
   */
  private static long[] map(Syscalls sys, MemorySegment state, int fd, MemorySegment params)
      throws IoUringSetupException {
    int sqEntries = params.get(ValueLayout.JAVA_INT, ParamsLayout.SQ_ENTRIES);
    int cqEntries = params.get(ValueLayout.JAVA_INT, ParamsLayout.CQ_ENTRIES);
    int features = params.get(ValueLayout.JAVA_INT, ParamsLayout.FEATURES);
    long sqRingSize =
        params.get(ValueLayout.JAVA_INT, ParamsLayout.SQ_OFF + ParamsLayout.SQ_ARRAY)
            + 4L * sqEntries;
    long cqRingSize =
        params.get(ValueLayout.JAVA_INT, ParamsLayout.CQ_OFF + ParamsLayout.CQ_CQES)
            + (long) CqeLayout.SIZE * cqEntries;
    boolean single = (features & IoUringAbi.IORING_FEAT_SINGLE_MMAP) != 0;
    if (single) {
      sqRingSize = Math.max(sqRingSize, cqRingSize);
      cqRingSize = sqRingSize;
    }
    long sqRing = sys.mmap(state, sqRingSize, fd, IoUringAbi.IORING_OFF_SQ_RING);
    if (sqRing < 0) {
      throw new IoUringSetupException("mmap SQ ring", (int) -sqRing);
    }
    long cqRing = sqRing;
    if (!single) {
      cqRing = sys.mmap(state, cqRingSize, fd, IoUringAbi.IORING_OFF_CQ_RING);
      if (cqRing < 0) {
        sys.munmap(state, sqRing, sqRingSize);
        throw new IoUringSetupException("mmap CQ ring", (int) -cqRing);
      }
    }
    long sqesSize = (long) SqeLayout.SIZE * sqEntries;
    long sqes = sys.mmap(state, sqesSize, fd, IoUringAbi.IORING_OFF_SQES);
    if (sqes < 0) {
      sys.munmap(state, sqRing, sqRingSize);
      if (!single) {
        sys.munmap(state, cqRing, cqRingSize);
      }
      throw new IoUringSetupException("mmap SQEs", (int) -sqes);
    }
    return new long[] {sqRing, sqRingSize, cqRing, cqRingSize, sqes, sqesSize};
  }

  /**
   * Blocking work (every fdatasync, writes the kernel cannot issue without waiting) runs on the
   * ring's io-wq workers, whose "bounded" pool defaults to 4 per CPU (io_uring/io-wq.c): on a small
   * machine that caps a depth-32 queue of syncs at 8. Raise it to {@code workers}
   * (IORING_REGISTER_IOWQ_MAX_WORKERS, 5.15; values[1] = 0 keeps the unbounded pool as is). Best
   * effort: returns the cap in effect, 0 when the kernel refused.
   */
  int raiseIoWorkerCap(int workers) {
    int rc;
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment values = temp.allocate(ValueLayout.JAVA_INT, 2);
      values.set(ValueLayout.JAVA_INT, 0, workers);
      values.set(ValueLayout.JAVA_INT, 4, 0);
      rc =
          sys.ioUringRegister(
              state, fd, IoUringAbi.IORING_REGISTER_IOWQ_MAX_WORKERS, values.address(), 2);
    }
    if (rc < 0) {
      LOG.log(
          System.Logger.Level.INFO,
          "io_uring io-wq worker cap not raised ({0}); blocking ops share the default pool",
          Errno.name(-rc));
      return 0;
    }
    return workers;
  }

  /**
   * Creates an eventfd and registers it so the kernel signals it on every posted CQE
   * (IORING_REGISTER_EVENTFD); returns it, the caller's to close after the ring.
   */
  int registerEventFd() throws IoUringSetupException {
    int eventFd = sys.eventfd(state);
    if (eventFd < 0) {
      throw new IoUringSetupException("eventfd", -eventFd);
    }
    int rc;
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment fdArg = temp.allocate(ValueLayout.JAVA_INT);
      fdArg.set(ValueLayout.JAVA_INT, 0, eventFd);
      rc = sys.ioUringRegister(state, fd, IoUringAbi.IORING_REGISTER_EVENTFD, fdArg.address(), 1);
    }
    if (rc < 0) {
      closeQuietly(eventFd);
      throw new IoUringSetupException("IORING_REGISTER_EVENTFD", -rc);
    }
    return eventFd;
  }

  boolean has(int setupFlag) {
    return (setupFlags & setupFlag) != 0;
  }

  /** The accepted setup flags and features, for the log line. */
  String describeFlags() {
    List<String> names = new ArrayList<>();
    if (has(IORING_SETUP_SINGLE_ISSUER)) {
      names.add("SINGLE_ISSUER");
    }
    if (has(IORING_SETUP_DEFER_TASKRUN)) {
      names.add("DEFER_TASKRUN");
    }
    if (has(IORING_SETUP_COOP_TASKRUN)) {
      names.add("COOP_TASKRUN");
    }
    if (has(IORING_SETUP_TASKRUN_FLAG)) {
      names.add("TASKRUN_FLAG");
    }
    if (has(IORING_SETUP_SUBMIT_ALL)) {
      names.add("SUBMIT_ALL");
    }
    if ((features & IoUringAbi.IORING_FEAT_SINGLE_MMAP) != 0) {
      names.add("FEAT_SINGLE_MMAP");
    }
    return String.join(",", names);
  }

  /** Unmaps the rings and closes the fd; the kernel then tears the instance down. */
  void close() {
    sys.munmap(state, sqesAddress, sqesSize);
    sys.munmap(state, sqRingAddress, sqRingSize);
    if (!cqRingShared) {
      sys.munmap(state, cqRingAddress, cqRingSize);
    }
    closeQuietly(fd);
  }

  static void closeQuietly(int fd) {
    Libc.get()
        .ifPresent(
            libc -> {
              try {
                libc.close(fd);
              } catch (NativeException e) {
                // The fd is gone either way on Linux (close(2)); nothing to retry.
              }
            });
  }
}
