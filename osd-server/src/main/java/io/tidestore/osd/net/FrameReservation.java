package io.tidestore.osd.net;

import io.netty.channel.ChannelHandlerContext;

/**
 * One connection's share of the {@link InboundBudget}: the reservation for the frame being
 * received, if it is large, and the connection's place in the budget's wait list when the
 * reservation did not fit. Owned by the connection's decoder; confined to its event loop.
 */
public final class FrameReservation {
  private final InboundBudget budget;
  private ChannelHandlerContext ctx;
  private ReadGate gate;
  private InboundBudget.Waiter waiter;
  private Runnable onGranted;
  private long held;
  private long wanted;
  private boolean queued;
  private boolean closed;

  public FrameReservation(InboundBudget budget) {
    this.budget = budget;
  }

  /**
   * Binds to the decoder's context; {@code onGranted} runs when a reservation that had to wait is
   * granted (reading has then resumed).
   */
  public void attach(ChannelHandlerContext ctx, Runnable onGranted) {
    this.ctx = ctx;
    this.gate = ReadGate.of(ctx.channel());
    this.onGranted = onGranted;
    this.waiter = new InboundBudget.Waiter(ctx.executor(), this::wake);
  }

  /**
   * Makes sure {@code bytes} are reserved for the frame being received: true when they are (now or
   * before), false when the budget is full, in which case reading is paused until a release lets
   * the reservation through.
   */
  public boolean reserve(long bytes) {
    if (held != 0) {
      return true;
    }
    wanted = bytes;
    if (budget.tryReserve(bytes)) {
      granted(bytes);
      return true;
    }
    gate.pause(ReadGate.BUDGET);
    if (!queued) {
      queued = true;
      budget.await(waiter);
    }
    // A release between the failed attempt and the registration would not have woken us.
    if (budget.tryReserve(bytes)) {
      granted(bytes);
      return true;
    }
    return false;
  }

  private void granted(long bytes) {
    held = bytes;
    gate.resume(ReadGate.BUDGET);
  }

  /** The frame is complete and handed on (or gone): gives its reservation back, if any. */
  public void release() {
    long h = held;
    held = 0;
    wanted = 0;
    if (gate != null) {
      gate.resume(ReadGate.BUDGET);
    }
    if (h != 0) {
      budget.release(h);
    }
  }

  /** The connection is gone: gives everything back and leaves the wait list. */
  public void close() {
    closed = true;
    if (waiter != null) {
      budget.cancel(waiter);
    }
    long h = held;
    held = 0;
    wanted = 0;
    if (h != 0) {
      budget.release(h);
    }
  }

  /** Bytes reserved now for this connection. */
  public long heldBytes() {
    return held;
  }

  /** True while the connection waits for the budget. */
  public boolean isWaiting() {
    return wanted != 0 && held == 0;
  }

  private void wake() {
    queued = false;
    if (closed || !ctx.channel().isActive() || held != 0 || wanted == 0) {
      return;
    }
    if (reserve(wanted)) {
      onGranted.run();
    }
  }
}
