package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.ConnectionErrors;
import io.tidestore.osd.net.InFlightLimit;
import io.tidestore.osd.net.ReadGate;
import io.tidestore.osd.net.ReplyFlusher;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What both versions of the object protocol's server do with a connection's ops: decode a frame,
 * dispatch it ({@link #dispatch}), track the op in flight, and write its reply when it completes,
 * in completion order, with backpressure (at {@link ServerLimits#maxInFlight} ops in flight, or
 * when the outbound buffer is over its high-water mark, the socket is not read until replies
 * drain). A refused request (an {@link OpException} or {@link ObjectOpsException} thrown while
 * dispatching) gets an error reply and the connection stays usable. How a reply begins and how an
 * error is written is the version's ({@link #begin}, {@link #replyError}). One per channel, on its
 * event loop.
 */
// Netty write futures: a failed write closes the channel and reaches exceptionCaught.
@SuppressWarnings("FutureReturnValueIgnored")
abstract class PipelinedOpHandler extends ChannelInboundHandlerAdapter {
  private final Logger log;
  private final ServerLimits limits;
  final OpLatencies latencies;
  ChannelHandlerContext ctx;
  private InFlightLimit inFlight;
  private ReplyFlusher replies;
  private int latencySlot = -1;
  private long decodedNanos; // when the frame being dispatched was decoded

  PipelinedOpHandler(Logger log, ServerLimits limits, OpLatencies latencies) {
    this.log = log;
    this.limits = limits;
    this.latencies = latencies;
  }

  /** Runs the op of {@code frame} (whose buffer is released after this returns). */
  abstract void dispatch(Frame frame);

  /** Whether a request refused while dispatching counts in the op latencies. */
  abstract boolean measuresRefusals();

  /** Starts a success reply; the caller writes the op's reply fields, then finishes it. */
  abstract ByteBuf begin(int op, long id, int bodyHint);

  /** Writes an error reply. */
  abstract void replyError(int op, long id, int status, String message);

  ServerLimits limits() {
    return limits;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.inFlight = new InFlightLimit(ReadGate.of(ctx.channel()), limits.maxInFlight());
    this.replies = new ReplyFlusher(ctx, ReplyFlusher.Policy.AT_ONCE, Integer.MAX_VALUE);
    this.latencySlot = latencies.slotOf(ctx.executor());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Frame frame = (Frame) msg;
    replies.readStarted();
    decodedNanos = System.nanoTime();
    try {
      dispatch(frame);
    } catch (OpException | ObjectOpsException e) {
      replyFailure(frame.op(), frame.requestId(), e);
      if (measuresRefusals()) {
        latencies.record(frame.op(), latencySlot, System.nanoTime() - decodedNanos);
      }
    } finally {
      frame.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    replies.readComplete();
    ctx.fireChannelReadComplete();
  }

  /**
   * Writes a reply: replies produced while a read batch is decoded (PING, errors, ops the store
   * completed at once) share one flush, hence one write syscall, at the end of the batch; replies
   * completed later are flushed at once.
   */
  void send(ByteBuf reply) {
    replies.send(reply);
  }

  /** Counts an op in flight and replies with {@code encoder} when {@code stage} completes. */
  <T> void track(int op, long id, CompletionStage<T> stage, Encoder<T> encoder) {
    inFlight.started();
    long decoded = decodedNanos;
    stage.whenComplete(
        (BiConsumer<T, Throwable>)
            (value, failure) -> {
              if (ctx.executor().inEventLoop()) {
                complete(op, id, encoder, decoded, value, failure);
              } else {
                ctx.executor().execute(() -> complete(op, id, encoder, decoded, value, failure));
              }
            });
  }

  private <T> void complete(
      int op, long id, Encoder<T> encoder, long decoded, T value, Throwable failure) {
    inFlight.finished();
    if (!ctx.channel().isActive()) {
      if (value instanceof ByteBuf buf) {
        buf.release();
      }
    } else if (failure != null) {
      replyFailure(op, id, ObjectOpsException.unwrap(failure));
    } else {
      encoder.encode(op, id, value);
    }
    latencies.record(op, latencySlot, System.nanoTime() - decoded);
    inFlight.resumeIfDrained(ctx.channel().isWritable());
  }

  /** Writes the reply of a completed op. */
  @FunctionalInterface
  interface Encoder<T> {
    void encode(int op, long id, T value);
  }

  void replyEmpty(int op, long id, Void unused) {
    send(Wire.finish(begin(op, id, 0), 0));
  }

  void replyData(int op, long id, ByteBuf data) {
    ctx.write(Wire.finish(begin(op, id, 0), data.readableBytes()));
    send(data);
  }

  void replyStat(int op, long id, ObjectInfo stat) {
    ByteBuf reply = begin(op, id, 16);
    reply.writeLong(stat.size());
    reply.writeLong(stat.mtimeNanos());
    send(Wire.finish(reply, 0));
  }

  /**
   * The error reply for {@code cause}: a refused request's own status, a failed op's status from
   * {@link OpsStatus}, else EIO (logged: nothing should fail that way).
   */
  void replyFailure(int op, long id, Throwable cause) {
    switch (cause) {
      case OpException e -> replyError(op, id, e.status(), e.getMessage());
      case ObjectOpsException e -> {
        int status = OpsStatus.of(e.code());
        replyError(op, id, status, OpsStatus.message(status, e));
      }
      default -> {
        log.log(Level.WARNING, Op.name(op) + " id " + id + " failed", cause);
        replyError(op, id, Status.EIO, String.valueOf(cause));
      }
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    inFlight.writabilityChanged(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.closeAfter(ctx, cause, log, "closing after error");
  }
}
