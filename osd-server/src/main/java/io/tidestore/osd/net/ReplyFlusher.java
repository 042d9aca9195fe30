package io.tidestore.osd.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * Writes one connection's replies and decides when to flush them, so replies share write system
 * calls: every reply produced while a read batch is decoded (errors, ops the store completed at
 * once) waits for one flush at the end of the batch ({@link #readComplete}), or an earlier one once
 * {@code batchFlushBytes} are pending. Replies completed outside a read batch are flushed as the
 * {@link Policy} says. One instance per channel, used on its event loop only; the handler calls
 * {@link #readStarted} from {@code channelRead} and {@link #readComplete} from {@code
 * channelReadComplete}.
 */
public final class ReplyFlusher {
  /** When replies completed outside a read batch go out. */
  public enum Policy {
    /**
     * Each at once, written with its own promise (the object protocol: few replies complete outside
     * a batch, and each is a whole answer a client waits for).
     */
    AT_ONCE,
    /**
     * Once per loop pass, from a task that runs after the pass's I/O events, so every reply that
     * completed in the pass (journal acks, disk reads reaped from the I/O queue) goes out in one
     * write. Written with the void promise: the hot path allocates nothing per reply, and a failed
     * write reaches the handler's {@code exceptionCaught}. (NBD.)
     */
    ONCE_PER_PASS
  }

  private final ChannelHandlerContext ctx;
  private final Policy policy;
  private final int batchFlushBytes;
  private final Runnable flushTask;
  private boolean reading; // inside a read batch: one flush at its end
  private boolean flushPending;
  private int unflushedBytes; // replies written in this read batch and not yet flushed
  private boolean flushScheduled;

  /**
   * @param batchFlushBytes reply bytes pending within one read batch that are flushed before the
   *     batch ends ({@link Integer#MAX_VALUE}: only at its end)
   */
  public ReplyFlusher(ChannelHandlerContext ctx, Policy policy, int batchFlushBytes) {
    this.ctx = ctx;
    this.policy = policy;
    this.batchFlushBytes = batchFlushBytes;
    this.flushTask =
        () -> {
          flushScheduled = false;
          ctx.flush();
        };
  }

  /** A read batch is being decoded: replies wait for its end. */
  public void readStarted() {
    reading = true;
  }

  /** The read batch ended: flushes what it produced. */
  public void readComplete() {
    reading = false;
    unflushedBytes = 0;
    if (flushPending) {
      flushPending = false;
      ctx.flush();
    }
  }

  /** Writes {@code reply} (ownership passes to the channel) and flushes it when its time comes. */
  @SuppressWarnings("FutureReturnValueIgnored") // AT_ONCE: a failed write closes the channel
  public void send(ByteBuf reply) {
    int bytes = reply.readableBytes();
    if (policy == Policy.AT_ONCE) {
      if (reading) {
        ctx.write(reply);
        pending(bytes);
      } else {
        ctx.writeAndFlush(reply);
      }
      return;
    }
    ctx.write(reply, ctx.voidPromise());
    if (reading) {
      pending(bytes);
    } else if (!flushScheduled) {
      flushScheduled = true;
      ctx.executor().execute(flushTask);
    }
  }

  private void pending(int bytes) {
    unflushedBytes += bytes;
    if (unflushedBytes >= batchFlushBytes) {
      // Send these now: the client takes them in while the rest of the batch is produced.
      unflushedBytes = 0;
      flushPending = false;
      ctx.flush();
    } else {
      flushPending = true;
    }
  }

  /** Flushes everything written, now (before a close, which would drop unflushed replies). */
  public void flushNow() {
    flushPending = false;
    ctx.flush();
  }
}
