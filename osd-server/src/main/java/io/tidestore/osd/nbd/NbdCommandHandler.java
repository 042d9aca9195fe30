package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.protocol.OpException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Executes NBD commands on a {@link BlockImage} and sends simple replies (magic, error, cookie, and
 * the data for a successful READ) as each completes: out of order, which the protocol allows, so a
 * slow request does not hold back fast ones. Invalid requests get the spec's errors and the
 * connection keeps going: EINVAL for unknown commands or flags, reads past the end and oversized
 * payloads; ENOSPC for writes past the end; EPERM for writes to a read-only image. NBD_CMD_DISC
 * stops reading and closes once every outstanding reply is sent. Backpressure: at the in-flight
 * limit the handler stops reading the socket.
 *
 * <p>One instance per channel; state is confined to its event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // write failures close the channel
final class NbdCommandHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(NbdCommandHandler.class.getName());
  private static final int KNOWN_FLAGS = Nbd.CMD_FLAG_FUA | Nbd.CMD_FLAG_NO_HOLE;

  private final BlockImage image;
  private final NbdServer.Limits limits;
  private final OpLatencies latencies;
  private ChannelHandlerContext ctx;
  private int latencySlot = -1;
  private int inFlight;
  private boolean disconnecting;
  private boolean reading; // inside a read batch: one flush at channelReadComplete
  private boolean flushPending;

  NbdCommandHandler(BlockImage image, NbdServer.Limits limits, OpLatencies latencies) {
    this.image = image;
    this.limits = limits;
    this.latencies = latencies;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.latencySlot = latencies.slotOf(ctx.executor());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    NbdRequest request = (NbdRequest) msg;
    long decodedNanos = System.nanoTime();
    reading = true;
    if (disconnecting) {
      release(request);
      return;
    }
    int error = validate(request);
    if (error != 0) {
      release(request);
      LOG.fine(() -> "NBD request type " + request.type() + " rejected with errno " + error);
      reply(request.cookie(), error, null);
      latencies.record(request.type(), latencySlot, System.nanoTime() - decodedNanos);
      return;
    }
    boolean fua = (request.flags() & Nbd.CMD_FLAG_FUA) != 0;
    switch (request.type()) {
      case Nbd.CMD_READ ->
          track(request, image.read(request.offset(), (int) request.length()), decodedNanos);
      case Nbd.CMD_WRITE ->
          track(request, image.write(request.offset(), request.payload(), fua), decodedNanos);
      case Nbd.CMD_FLUSH -> track(request, image.flush(), decodedNanos);
      case Nbd.CMD_TRIM ->
          track(request, image.trim(request.offset(), request.length(), fua), decodedNanos);
      case Nbd.CMD_WRITE_ZEROES ->
          track(request, image.writeZeroes(request.offset(), request.length(), fua), decodedNanos);
      case Nbd.CMD_DISC -> {
        disconnecting = true;
        ctx.channel().config().setAutoRead(false);
        closeIfDrained();
      }
      default -> throw new IllegalStateException("validated type " + request.type());
    }
  }

  /** 0 when {@code request} may run, else the NBD error to reply. */
  private int validate(NbdRequest request) {
    if ((request.flags() & ~KNOWN_FLAGS) != 0) {
      return Nbd.EINVAL;
    }
    int type = request.type();
    if (type == Nbd.CMD_DISC || type == Nbd.CMD_FLUSH) {
      return 0;
    }
    if (type != Nbd.CMD_READ
        && type != Nbd.CMD_WRITE
        && type != Nbd.CMD_TRIM
        && type != Nbd.CMD_WRITE_ZEROES) {
      return Nbd.EINVAL;
    }
    if (request.payloadDropped()) {
      return Nbd.EINVAL;
    }
    boolean writes = type != Nbd.CMD_READ;
    if (writes && image.readOnly()) {
      return Nbd.EPERM;
    }
    if (type == Nbd.CMD_READ && request.length() > Nbd.MAX_PAYLOAD) {
      return Nbd.EINVAL;
    }
    long offset = request.offset();
    long end = offset + request.length();
    if (offset < 0 || end < offset || end > image.size()) {
      // doc/proto.md: ENOSPC for writes past the end, EINVAL otherwise.
      return writes && offset >= 0 && end >= offset ? Nbd.ENOSPC : Nbd.EINVAL;
    }
    return 0;
  }

  private <T> void track(NbdRequest request, CompletionStage<T> stage, long decodedNanos) {
    inFlight++;
    if (inFlight >= limits.maxInFlight()) {
      ctx.channel().config().setAutoRead(false);
    }
    stage.whenComplete(new Completion<>(request.cookie(), request.type(), decodedNanos));
  }

  private final class Completion<T> implements BiConsumer<T, Throwable> {
    private final long cookie;
    private final int type;
    private final long decodedNanos;

    Completion(long cookie, int type, long decodedNanos) {
      this.cookie = cookie;
      this.type = type;
      this.decodedNanos = decodedNanos;
    }

    @Override
    public void accept(T value, Throwable failure) {
      if (ctx.executor().inEventLoop()) {
        complete(value, failure);
      } else {
        ctx.executor().execute(() -> complete(value, failure));
      }
    }

    private void complete(T value, Throwable failure) {
      inFlight--;
      if (!ctx.channel().isActive()) {
        if (value instanceof ByteBuf buf) {
          buf.release();
        }
        return;
      }
      if (failure != null) {
        Throwable cause =
            failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        int error;
        if (cause instanceof OpException e) {
          error = Nbd.errorFor(e.status());
        } else {
          LOG.log(Level.WARNING, "NBD command " + type + " on " + image.name() + " failed", cause);
          error = Nbd.EIO;
        }
        reply(cookie, error, null);
      } else {
        reply(cookie, 0, type == Nbd.CMD_READ ? (ByteBuf) value : null);
      }
      latencies.record(type, latencySlot, System.nanoTime() - decodedNanos);
      if (disconnecting) {
        closeIfDrained();
      } else if (!ctx.channel().config().isAutoRead() && inFlight <= limits.maxInFlight() / 2) {
        ctx.channel().config().setAutoRead(true);
      }
    }
  }

  private void reply(long cookie, int error, ByteBuf data) {
    ByteBuf header = ctx.alloc().buffer(16);
    header.writeInt(Nbd.SIMPLE_REPLY_MAGIC).writeInt(error).writeLong(cookie);
    ctx.write(header);
    if (data != null) {
      ctx.write(data);
    }
    if (reading) {
      flushPending = true;
    } else {
      ctx.flush();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    reading = false;
    if (flushPending) {
      flushPending = false;
      ctx.flush();
    }
    ctx.fireChannelReadComplete();
  }

  private void closeIfDrained() {
    if (inFlight == 0) {
      flushPending = false;
      ctx.flush(); // close() would drop replies written but not flushed
      ctx.close();
    }
  }

  private static void release(NbdRequest request) {
    if (request.payload() != null) {
      request.payload().release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof java.io.IOException) {
      LOG.info(ctx.channel().remoteAddress() + ": " + cause.getMessage() + ", closing");
    } else {
      LOG.log(Level.WARNING, ctx.channel().remoteAddress() + ": NBD connection failed", cause);
    }
    ctx.close();
  }
}
