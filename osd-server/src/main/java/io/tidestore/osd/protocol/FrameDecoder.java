package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.tidestore.osd.net.BudgetedDecoder;
import io.tidestore.osd.net.InboundBudget;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Splits the byte stream into {@link Frame}s. The length field is checked before anything is
 * buffered for the frame: a length below the header size or above {@link
 * FrameDescriptor#MAX_LENGTH} (a 4 GiB prefix included) gets one EMSGSIZE reply (the request id
 * when the header is already here, else 0), a log line, and the connection is closed; nothing of
 * that size is ever allocated, so per-connection memory stays below one maximum frame.
 *
 * <p>A frame that stays incomplete for longer than the partial-frame timeout (a slow-loris client,
 * or a truncated frame followed by silence) closes the connection with a log line. One periodic
 * check per connection implements it, not one timer per frame.
 *
 * <p>A frame of more than {@link InboundBudget#THRESHOLD} bytes is reserved from the daemon's
 * {@link InboundBudget} when its header arrives and is given back when the frame is complete and
 * handed on, or when the connection goes away. While the budget is full the connection is not read
 * (docs/protocol.md, "Hostile and broken input"); the partial-frame timeout keeps running, and
 * restarts when the reservation is granted.
 *
 * <p>One instance per channel; everything runs on the channel's event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // write/schedule failures surface as channel errors
public final class FrameDecoder extends BudgetedDecoder {
  private static final Logger LOG = Logger.getLogger(FrameDecoder.class.getName());

  private final long partialTimeoutNanos;
  private final boolean sendErrorReply;
  private long partialSinceNanos = -1;
  private boolean failed;
  private ScheduledFuture<?> checker;

  /**
   * @param partialTimeoutNanos how long one frame may take to arrive completely
   * @param sendErrorReply true on the server (reply before closing), false on the client
   */
  public FrameDecoder(long partialTimeoutNanos, boolean sendErrorReply) {
    this(partialTimeoutNanos, sendErrorReply, InboundBudget.unbounded());
  }

  /** As above, reserving large frames from {@code budget}. */
  public FrameDecoder(long partialTimeoutNanos, boolean sendErrorReply, InboundBudget budget) {
    super(budget);
    this.partialTimeoutNanos = partialTimeoutNanos;
    this.sendErrorReply = sendErrorReply;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    reservation.attach(
        ctx,
        () -> {
          if (partialSinceNanos >= 0) {
            // The wait was the budget's doing, not the sender's: a fresh timeout to send it.
            partialSinceNanos = ctx.executor().ticker().nanoTime();
          }
        });
    long period = Math.max(partialTimeoutNanos / 4, TimeUnit.MILLISECONDS.toNanos(10));
    checker =
        ctx.executor()
            .scheduleAtFixedRate(() -> checkPartial(ctx), period, period, TimeUnit.NANOSECONDS);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    reservation.close();
    if (checker != null) {
      checker.cancel(false);
    }
  }

  private void checkPartial(ChannelHandlerContext ctx) {
    if (partialSinceNanos >= 0
        && ctx.executor().ticker().nanoTime() - partialSinceNanos > partialTimeoutNanos) {
      LOG.warning(
          ctx.channel().remoteAddress()
              + ": frame incomplete for more than "
              + TimeUnit.NANOSECONDS.toMillis(partialTimeoutNanos)
              + " ms, closing (slow or truncated sender)");
      partialSinceNanos = -1;
      ctx.close();
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    boolean progressed = false;
    while (in.readableBytes() >= 4) {
      int start = in.readerIndex();
      long length = in.getUnsignedInt(start);
      if (length < FrameDescriptor.MIN_LENGTH || length > FrameDescriptor.MAX_LENGTH) {
        if (in.readableBytes() < FrameDescriptor.HEADER_LENGTH
            && length >= FrameDescriptor.MIN_LENGTH) {
          // Wait for the 16-byte header (never more) so the error names the request id; a
          // sender that stops here is closed by the partial-frame timeout.
          break;
        }
        reject(ctx, in, length);
        return;
      }
      if (in.readableBytes() < 4 + length) {
        if (length > InboundBudget.THRESHOLD) {
          // Reserve the frame before buffering it; when the budget is full, reading pauses.
          reservation.reserve(4 + length);
        }
        break;
      }
      int op = in.getUnsignedByte(start + FrameDescriptor.OP_OFFSET);
      int flags = in.getUnsignedByte(start + FrameDescriptor.FLAGS_OFFSET);
      int status = in.getUnsignedShort(start + FrameDescriptor.STATUS_OFFSET);
      long id = in.getLong(start + FrameDescriptor.REQUEST_ID_OFFSET);
      int bodyLength = (int) length - FrameDescriptor.MIN_LENGTH;
      ByteBuf body = in.retainedSlice(start + FrameDescriptor.HEADER_LENGTH, bodyLength);
      in.skipBytes(4 + (int) length);
      out.add(new Frame(op, flags, status, id, body));
      if (length > InboundBudget.THRESHOLD) {
        reservation.release();
      }
      progressed = true;
    }
    if (!in.isReadable()) {
      partialSinceNanos = -1;
    } else if (progressed || partialSinceNanos < 0) {
      partialSinceNanos = ctx.executor().ticker().nanoTime();
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    decode(ctx, in, out);
    if (in.isReadable() && !failed) {
      LOG.warning(
          ctx.channel().remoteAddress()
              + ": connection closed inside a frame, "
              + in.readableBytes()
              + " bytes of a truncated frame dropped");
      in.skipBytes(in.readableBytes());
    }
  }

  private void reject(ChannelHandlerContext ctx, ByteBuf in, long length) {
    failed = true;
    long id =
        in.readableBytes() >= FrameDescriptor.HEADER_LENGTH ? in.getLong(in.readerIndex() + 8) : 0;
    int op =
        in.readableBytes() > FrameDescriptor.OP_OFFSET
            ? in.getUnsignedByte(in.readerIndex() + FrameDescriptor.OP_OFFSET)
            : 0;
    in.skipBytes(in.readableBytes());
    partialSinceNanos = -1;
    String why =
        "frame length "
            + length
            + " outside "
            + FrameDescriptor.MIN_LENGTH
            + ".."
            + FrameDescriptor.MAX_LENGTH;
    LOG.warning(ctx.channel().remoteAddress() + ": " + why + ", closing");
    if (sendErrorReply) {
      ctx.writeAndFlush(Replies.error(ctx.alloc(), op, id, Status.EMSGSIZE, why))
          .addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.close();
    }
  }
}
