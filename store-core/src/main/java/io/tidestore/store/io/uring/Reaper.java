package io.tidestore.store.io.uring;

import io.tidestore.store.io.CompletionFailures;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.nativeio.Libc;
import java.io.IOException;

/**
 * The completion side of an io_uring queue: gets CQEs posted (entering the kernel where
 * DEFER_TASKRUN or an overflow needs it), takes them off the ring into {@link OpSlots}, and
 * delivers each finished operation's outcome to its {@link IoCompletion}, a failure as an {@link
 * IoOpException} with the kernel's errno and strerror text. Owner thread only. A completion that
 * polls again gets nothing: delivery does not nest.
 */
final class Reaper {
  private static final System.Logger LOG = System.getLogger(Reaper.class.getName());

  private final IoUringQueue queue;
  private final Ring ring;
  private final OpSlots slots;
  private final IoUringEnter enter;
  private final Libc libc;
  private final boolean deferTaskrun;

  /** CQEs the last {@link #deliverReady()} took from the ring (finished ops or not). */
  private int lastReapedCqes;

  private int lastOverflow;
  private long overflowFlushes;
  private boolean delivering;

  /** The first throwable of a completion since the last rethrow, later ones suppressed in it. */
  private Throwable failure;

  Reaper(IoUringQueue queue, Ring ring, OpSlots slots, IoUringEnter enter, Libc libc) {
    this.queue = queue;
    this.ring = ring;
    this.slots = slots;
    this.enter = enter;
    this.libc = libc;
    this.deferTaskrun = ring.has(IoUringAbi.IORING_SETUP_DEFER_TASKRUN);
  }

  /** Whether completions are being delivered now (a completion is running). */
  boolean isDelivering() {
    return delivering;
  }

  /**
   * Delivers every completion the kernel has, entering it as often as that takes. A completion that
   * throws stops neither this batch nor the later ones: its throwable comes out once all are
   * delivered (see {@link #deliverReady()}).
   */
  int deliverCompletions() {
    if (delivering) {
      return 0;
    }
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
    while (queue.inFlight() - slots.preparedCount() > 0) {
      enterQuietly();
      delivered += reapAndDeliver();
      if (lastReapedCqes == 0 && (ring.sq.flags() & IoUringAbi.IORING_SQ_TASKRUN) == 0) {
        break;
      }
    }
    rethrowFailure();
    return delivered;
  }

  private void enterQuietly() {
    try {
      enter.getEvents();
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

  /**
   * Reaps every ready CQE into the ready list, then delivers (callbacks may prepare more). Every
   * ready operation is delivered even if a completion before it threw (its caller would wait
   * forever, and the slots of the rest would be forgotten): the first throwable, with the later
   * ones suppressed in it, is rethrown after the last delivery, for the owner's loop to log.
   */
  int deliverReady() {
    if (delivering) {
      lastReapedCqes = 0;
      return 0;
    }
    int n = reapAndDeliver();
    rethrowFailure();
    return n;
  }

  /**
   * {@link #deliverReady()} without the rethrow: a failing completion is kept in {@link #failure}.
   */
  private int reapAndDeliver() {
    int overflow = ring.cq.overflow();
    if (overflow != lastOverflow) {
      LOG.log(
          System.Logger.Level.ERROR,
          "io_uring CQ overflow counter is {0}: the kernel dropped completions",
          overflow);
      lastOverflow = overflow;
    }
    lastReapedCqes = slots.reap(ring.cq);
    int n = slots.readyCount();
    delivering = true;
    try {
      for (int i = 0; i < n; i++) {
        try {
          deliver(slots.readySlot(i));
        } catch (Throwable thrown) {
          failure = CompletionFailures.add(failure, thrown);
        }
      }
    } finally {
      delivering = false;
      slots.clearReady();
    }
    return n;
  }

  private void rethrowFailure() {
    Throwable thrown = failure;
    failure = null;
    CompletionFailures.rethrow(thrown);
  }

  private void deliver(int slot) {
    IoCompletion completion = slots.completion(slot);
    long tag = slots.tag(slot);
    IoOpException.Op op = slots.op(slot);
    int res = slots.mainResult(slot);
    IoOpException error = null;
    if (res < 0) {
      error = error(op, slot, -res, null);
    } else if (op == IoOpException.Op.WRITE_THEN_SYNC) {
      int length = slots.length(slot);
      if (res != length) {
        // A short write breaks the link: the kernel cancels the fdatasync (io_uring(7), IO_LINK).
        error = error(op, slot, Errno.EIO, "short write " + res + " of " + length + " bytes");
      } else if (slots.syncResult(slot) < 0) {
        error = error(op, slot, -slots.syncResult(slot), "fdatasync after the write");
      }
    }
    queue.release(slot);
    if (error == null) {
      completion.completed(tag, res);
    } else {
      completion.failed(tag, error);
    }
  }

  /** Fails an operation the kernel never saw (close discarded its SQEs) with ECANCELED. */
  void cancel(int slot) {
    IoCompletion completion = slots.completion(slot);
    long tag = slots.tag(slot);
    IoOpException error =
        error(slots.op(slot), slot, Errno.ECANCELED, "queue closed before submission");
    queue.release(slot);
    completion.failed(tag, error);
  }

  private IoOpException error(IoOpException.Op op, int slot, int errno, String what) {
    String text = libc.strerror(errno);
    return new IoOpException(
        op,
        errno,
        slots.offset(slot),
        slots.length(slot),
        what == null ? text : what + ": " + text);
  }
}
