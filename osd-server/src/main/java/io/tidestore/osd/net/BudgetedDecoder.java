package io.tidestore.osd.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * A frame decoder whose large frames reserve room in the daemon's {@link InboundBudget} ({@link
 * #reservation}), and which really stops reading while it waits for that room. The object protocol
 * and NBD decoders both extend it.
 */
public abstract class BudgetedDecoder extends ByteToMessageDecoder {
  /** The frame being received's share of the budget; confined to the channel's event loop. */
  protected final FrameReservation reservation;

  protected BudgetedDecoder(InboundBudget budget) {
    this.reservation = new FrameReservation(budget);
  }

  /** Bytes this connection holds reserved from the budget (metrics, tests). */
  public long reservedBytes() {
    return reservation.heldBytes();
  }

  /**
   * While the budget makes this connection wait, reading must stay off. ByteToMessageDecoder asks
   * for one more read whenever a read batch decoded nothing and auto-read is off (so a partial
   * message can complete), which here would keep pulling the waiting frame in, a read at a time,
   * and buffer all of it, the very thing the budget stops.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (reservation.isWaiting()) {
      discardSomeReadBytes();
      ctx.fireChannelReadComplete();
      return;
    }
    super.channelReadComplete(ctx);
  }
}
