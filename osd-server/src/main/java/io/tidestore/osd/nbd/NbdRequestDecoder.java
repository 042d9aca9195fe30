package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.tidestore.osd.net.BudgetedDecoder;
import io.tidestore.osd.net.InboundBudget;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Splits transmission-phase bytes into {@link NbdRequest}s: a 28-byte header (magic u32, flags u16,
 * type u16, cookie u64, offset u64, length u32) and, for NBD_CMD_WRITE, the payload. A payload
 * above {@link Nbd#MAX_PAYLOAD} is skipped as it arrives, never buffered, and only once all of it
 * has been skipped is the request passed on, marked so it gets EINVAL: a client that is still
 * sending the payload cannot match a reply to it yet (libnbd drops the connection with "no matching
 * cookie found for server reply"), and nbdkit too reads the payload before it refuses. A bad magic
 * cannot be resynchronized: log and close. One instance per channel, on its event loop.
 *
 * <p>A payload of {@link #ASSEMBLE_MIN_BYTES} to {@link #ASSEMBLE_MAX_BYTES} that is not all there
 * yet is assembled in a buffer of its own: what has arrived is copied into it and consumed, and
 * later reads are copied straight in. Left to the cumulation, a 64 KiB write that straddles the
 * socket's 64 KiB reads kept the cumulation buffer growing, and each growth copied everything it
 * held again (about twice the payload's bytes, ~10% of a reactor's time at 64 KiB writes); now each
 * byte is copied once, and the cumulation is mostly empty so the next read is taken as is. Larger
 * payloads still accumulate as they arrive, so a header alone never makes the server allocate more
 * than this.
 *
 * <p>A payload of more than {@link InboundBudget#THRESHOLD} bytes that is not all there is reserved
 * from the daemon's {@link InboundBudget} before it is buffered, and given back when the request is
 * handed on or the connection goes away; while the budget is full the connection is not read
 * (docs/nbd.md, "Receive buffering"). Such a payload that takes longer than {@link
 * #STALL_TIMEOUT_NANOS} to arrive (counted again from when its reservation is granted) closes the
 * connection, so a stalled sender cannot keep the budget from everyone else.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close failures need no handling
final class NbdRequestDecoder extends BudgetedDecoder {
  private static final Logger LOG = Logger.getLogger(NbdRequestDecoder.class.getName());

  /** Smallest payload assembled in a buffer of its own. */
  static final int ASSEMBLE_MIN_BYTES = 32 << 10;

  /** Largest payload assembled in a buffer of its own (allocated when its header arrives). */
  static final int ASSEMBLE_MAX_BYTES = 1 << 20;

  /** How long a reserved (large) payload may take to arrive: 30 s, as the object protocol's. */
  static final long STALL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final long stallTimeoutNanos;

  /** When the large payload being received started (or got its reservation); -1 when none. */
  private long stallSinceNanos = -1;

  private ScheduledFuture<?> checker;

  /** Bytes of an over-limit payload still to skip; its refusal waits in {@link #dropped}. */
  private long discarding;

  /** The over-limit write being skipped, passed on once its last payload byte is gone. */
  private NbdRequest dropped;

  /** The payload being assembled, and its request's header fields; null when none. */
  private ByteBuf assembling;

  private int assemblingFlags;
  private long assemblingCookie;
  private long assemblingOffset;

  NbdRequestDecoder() {
    this(InboundBudget.unbounded(), STALL_TIMEOUT_NANOS);
  }

  NbdRequestDecoder(InboundBudget budget, long stallTimeoutNanos) {
    super(budget);
    this.stallTimeoutNanos = stallTimeoutNanos;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    reservation.attach(
        ctx,
        () -> {
          if (stallSinceNanos >= 0) {
            stallSinceNanos = ctx.executor().ticker().nanoTime();
          }
        });
  }

  /** Starts timing a large payload (and the connection's periodic check, on its first one). */
  private void startStallClock(ChannelHandlerContext ctx) {
    if (stallSinceNanos < 0) {
      stallSinceNanos = ctx.executor().ticker().nanoTime();
    }
    if (checker == null) {
      long period = Math.max(stallTimeoutNanos / 4, TimeUnit.MILLISECONDS.toNanos(10));
      checker =
          ctx.executor()
              .scheduleAtFixedRate(() -> checkStall(ctx), period, period, TimeUnit.NANOSECONDS);
    }
  }

  private void checkStall(ChannelHandlerContext ctx) {
    if (stallSinceNanos >= 0
        && ctx.executor().ticker().nanoTime() - stallSinceNanos > stallTimeoutNanos) {
      LOG.warning(
          ctx.channel().remoteAddress()
              + ": NBD write payload incomplete for more than "
              + TimeUnit.NANOSECONDS.toMillis(stallTimeoutNanos)
              + " ms, closing (slow or truncated sender)");
      stallSinceNanos = -1;
      ctx.close();
    }
  }

  /** A large payload is complete and handed on: its reservation goes back. */
  private void finishLarge() {
    stallSinceNanos = -1;
    reservation.release();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      if (assembling != null) {
        int take = Math.min(assembling.writableBytes(), in.readableBytes());
        assembling.writeBytes(in, take);
        if (assembling.isWritable()) {
          return;
        }
        ByteBuf payload = assembling;
        assembling = null;
        if (payload.readableBytes() > InboundBudget.THRESHOLD) {
          finishLarge();
        }
        out.add(
            new NbdRequest(
                assemblingFlags,
                Nbd.CMD_WRITE,
                assemblingCookie,
                assemblingOffset,
                payload.readableBytes(),
                payload,
                false));
        continue;
      }
      if (discarding > 0) {
        int skip = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(skip);
        discarding -= skip;
        if (discarding > 0) {
          return;
        }
        out.add(dropped);
        dropped = null;
        continue;
      }
      if (in.readableBytes() < Nbd.REQUEST_HEADER) {
        return;
      }
      int start = in.readerIndex();
      if (in.getInt(start) != Nbd.REQUEST_MAGIC) {
        if (!out.isEmpty()) {
          // The requests decoded before it go on first (ByteToMessageDecoder calls us again);
          // closing now would apply them with their replies dropped.
          return;
        }
        LOG.warning(ctx.channel().remoteAddress() + ": bad NBD request magic, closing");
        in.skipBytes(in.readableBytes());
        // Their replies wait for the end of the read pass: send them before closing.
        ctx.flush();
        ctx.close();
        return;
      }
      int flags = in.getUnsignedShort(start + 4);
      int type = in.getUnsignedShort(start + 6);
      long cookie = in.getLong(start + 8);
      long offset = in.getLong(start + 16);
      long length = in.getUnsignedInt(start + 24);
      if (type != Nbd.CMD_WRITE) {
        in.skipBytes(Nbd.REQUEST_HEADER);
        out.add(new NbdRequest(flags, type, cookie, offset, length, null, false));
        continue;
      }
      if (length > Nbd.MAX_PAYLOAD) {
        in.skipBytes(Nbd.REQUEST_HEADER);
        discarding = length;
        dropped = new NbdRequest(flags, type, cookie, offset, length, null, true);
        continue;
      }
      if (in.readableBytes() < Nbd.REQUEST_HEADER + length) {
        if (length > InboundBudget.THRESHOLD) {
          startStallClock(ctx);
          if (!reservation.reserve(length)) {
            return; // reading paused until the budget has room
          }
        }
        if (length < ASSEMBLE_MIN_BYTES || length > ASSEMBLE_MAX_BYTES) {
          return;
        }
        in.skipBytes(Nbd.REQUEST_HEADER);
        assembling = ctx.alloc().directBuffer((int) length, (int) length);
        assemblingFlags = flags;
        assemblingCookie = cookie;
        assemblingOffset = offset;
        continue;
      }
      in.skipBytes(Nbd.REQUEST_HEADER);
      ByteBuf payload = in.readRetainedSlice((int) length);
      if (length > InboundBudget.THRESHOLD) {
        finishLarge();
      }
      out.add(new NbdRequest(flags, type, cookie, offset, length, payload, false));
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    reservation.close();
    if (checker != null) {
      checker.cancel(false);
    }
    if (assembling != null) {
      assembling.release();
      assembling = null;
    }
  }
}
