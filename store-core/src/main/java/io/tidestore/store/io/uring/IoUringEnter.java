package io.tidestore.store.io.uring;

import static io.tidestore.store.io.uring.IoUringAbi.IORING_ENTER_EXT_ARG;
import static io.tidestore.store.io.uring.IoUringAbi.IORING_ENTER_GETEVENTS;

import io.tidestore.store.io.Errno;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * io_uring_enter(2) for one ring: hands the kernel every published SQE it has not consumed and,
 * when asked, runs completion work (DEFER_TASKRUN) and waits. A timed wait passes a struct
 * io_uring_getevents_arg pointing at a __kernel_timespec (IORING_ENTER_EXT_ARG, 5.11), both
 * preallocated here, so no enter allocates. It also decides which errnos are not failures. Owner
 * thread only.
 */
final class IoUringEnter {
  private final Ring ring;
  private final MemorySegment waitArg;
  private final MemorySegment waitTimespec;

  IoUringEnter(Ring ring, Arena arena) {
    this.ring = ring;
    this.waitArg = arena.allocate(ParamsLayout.GETEVENTS_ARG_SIZE, 8);
    this.waitTimespec = arena.allocate(ParamsLayout.TIMESPEC_SIZE, 8);
    waitArg.set(ValueLayout.JAVA_LONG, ParamsLayout.GETEVENTS_ARG_TS, waitTimespec.address());
  }

  /** Submits what is published and unconsumed; no system call when there is none. */
  int submit() throws IOException {
    return enter(0, 0, 0, 0);
  }

  /** Submits, and runs completion work without waiting (GETEVENTS with min_complete 0). */
  int getEvents() throws IOException {
    return enter(0, IORING_ENTER_GETEVENTS, 0, 0);
  }

  /** Submits, then waits until one CQE is ready or {@code timeoutNanos} (>= 0) passed. */
  int waitForOne(long timeoutNanos) throws IOException {
    waitTimespec.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
    waitTimespec.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
    return enter(
        1,
        IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
        waitArg.address(),
        ParamsLayout.GETEVENTS_ARG_SIZE);
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
}
