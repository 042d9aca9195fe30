package io.tidestore.osd.reactor;

import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoOps;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The completion eventfd in an io_uring loop: a one-shot IORING_OP_POLL_ADD for POLLIN on the
 * loop's own ring, re-armed after each wake-up. Re-arming costs one SQE, which goes out with the
 * loop's next submission, not a syscall of its own; a completion signalled between the drain and
 * the re-arm leaves the eventfd readable, so the new poll completes at once and nothing is missed.
 * A poll rather than a read of the eventfd: io_uring may answer a read of a non-blocking fd with
 * EAGAIN instead of waiting.
 *
 * <p>Stopping cancels the armed poll (IORING_OP_ASYNC_CANCEL); Netty drops the registration once
 * both the poll and the cancel have completed.
 */
final class IoUringCompletionFdHandle extends CompletionFdHandle implements IoUringIoHandle {
  private static final Logger LOG = Logger.getLogger(IoUringCompletionFdHandle.class.getName());
  // <linux/io_uring.h> opcodes and <poll.h> POLLIN; Netty keeps its constants package-private.
  private static final byte IORING_OP_POLL_ADD = 6;
  private static final byte IORING_OP_ASYNC_CANCEL = 14;
  private static final int POLLIN = 0x1;
  private static final int ECANCELED = 125;
  private static final long POLL_DATA = 1; // long: the data field of the non-deprecated constructor
  private static final long CANCEL_DATA = 2;

  private long armedPoll; // the armed poll's user_data, 0 when none is armed
  private boolean stopped;

  IoUringCompletionFdHandle(int fd, Runnable onReadable) {
    super(fd, onReadable);
  }

  @Override
  void start(IoRegistration registration) {
    this.registration = registration;
    arm();
  }

  private void arm() {
    armedPoll =
        registration.submit(
            new IoUringIoOps(
                IORING_OP_POLL_ADD,
                (byte) 0,
                (short) 0,
                fd.intValue(),
                0L,
                0L,
                0, // len 0: one-shot (IORING_POLL_ADD_MULTI would be 1)
                POLLIN, // poll32_events
                POLL_DATA,
                (short) 0,
                (short) 0,
                0,
                0L));
  }

  @Override
  void stop() {
    if (stopped || registration == null) {
      return;
    }
    stopped = true;
    if (armedPoll != 0) {
      registration.submit(
          new IoUringIoOps(
              IORING_OP_ASYNC_CANCEL,
              (byte) 0,
              (short) 0,
              -1,
              0L,
              armedPoll, // addr: user_data of the op to cancel
              0,
              0,
              CANCEL_DATA,
              (short) 0,
              (short) 0,
              0,
              0L));
    }
    registration.cancel();
  }

  @Override
  public void handle(IoRegistration registration, IoEvent event) {
    IoUringIoEvent cqe = (IoUringIoEvent) event;
    if (cqe.opcode() != IORING_OP_POLL_ADD) {
      return; // the cancel's own completion
    }
    armedPoll = 0;
    if (stopped) {
      return;
    }
    if (cqe.res() < 0 && cqe.res() != -ECANCELED) {
      // Not expected for an eventfd; reap anyway and re-arm, so completions are never stranded.
      LOG.log(
          Level.WARNING,
          "poll of completion eventfd {0} failed: res {1}",
          new Object[] {fd.intValue(), cqe.res()});
    }
    readable();
    if (!stopped) {
      arm();
    }
  }
}
