package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tidestore.osd.image.BlockImage;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.ConnectionErrors;
import io.tidestore.osd.net.InFlightLimit;
import io.tidestore.osd.net.ReadGate;
import io.tidestore.osd.net.ReplyFlusher;
import io.tidestore.osd.ops.ObjectOpsException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Executes NBD commands on a {@link BlockImage} and sends each reply as it completes: out of order,
 * which the protocol allows, so a slow request does not hold back fast ones. Replies are simple
 * (magic, error, cookie, and the data for a successful READ) unless structured replies were
 * negotiated: then a READ gets one NBD_REPLY_TYPE_OFFSET_DATA chunk and BLOCK_STATUS one
 * NBD_REPLY_TYPE_BLOCK_STATUS chunk, and their errors are NBD_REPLY_TYPE_ERROR chunks, as nbdkit
 * sends them (other commands keep simple replies, which the spec allows). Invalid requests get the
 * spec's errors and the connection keeps going: EINVAL for unknown commands or flags, reads past
 * the end, oversized payloads and BLOCK_STATUS without base:allocation; ENOSPC for writes past the
 * end; EPERM for writes, trims and zeroes on a read-only export (a read-only image, or a client
 * without the write cap); ENOTSUP for a FAST_ZERO that would have to write. NBD_CMD_DISC stops
 * reading and closes once every outstanding reply is sent. Backpressure: at the in-flight limit the
 * handler stops reading the socket.
 *
 * <p>One instance per channel; state is confined to its event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // write failures close the channel
final class NbdCommandHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(NbdCommandHandler.class.getName());
  private static final int KNOWN_FLAGS =
      Nbd.CMD_FLAG_FUA
          | Nbd.CMD_FLAG_NO_HOLE
          | Nbd.CMD_FLAG_DF
          | Nbd.CMD_FLAG_REQ_ONE
          | Nbd.CMD_FLAG_FAST_ZERO;

  /**
   * What the handshake settled for this connection.
   *
   * @param readOnly writes, trims and zeroes get EPERM
   * @param structuredReplies READ and BLOCK_STATUS reply in structured chunks
   * @param baseAllocation base:allocation was selected for this export: BLOCK_STATUS is allowed
   */
  record Session(boolean readOnly, boolean structuredReplies, boolean baseAllocation) {
    static final Session SIMPLE = new Session(false, false, false);
  }

  /**
   * Reply bytes buffered within one read batch before they are flushed anyway. Flushing only at the
   * end of the batch put server and client in lockstep at 64k qd16: the client got nothing until
   * every reply of the batch (10-16 x 64 KiB, each looked up and copied) was ready, and the server
   * then idled while the client took them in. 256 KiB sends 64k replies four at a time; smaller
   * flushes cost more than they overlap, since every write ends in a short TCP segment (a 64 KiB +
   * 16 byte reply alone is two loopback segments, four of them five). 4k replies are unaffected: a
   * batch rarely holds 64 of them.
   */
  static final int FLUSH_BYTES = 256 * 1024;

  private final BlockImage image;
  private final Session session;
  private final NbdServer.Limits limits;
  private final OpLatencies latencies;
  private ChannelHandlerContext ctx;
  private InFlightLimit inFlight;
  private ReplyFlusher replies;
  private int latencySlot = -1;
  private boolean disconnecting;
  private final ArrayDeque<Op> freeOps = new ArrayDeque<>();

  NbdCommandHandler(
      BlockImage image, Session session, NbdServer.Limits limits, OpLatencies latencies) {
    this.image = image;
    this.session = session;
    this.limits = limits;
    this.latencies = latencies;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.inFlight = new InFlightLimit(ReadGate.of(ctx.channel()), limits.maxInFlight());
    this.replies = new ReplyFlusher(ctx, ReplyFlusher.Policy.ONCE_PER_PASS, FLUSH_BYTES);
    this.latencySlot = latencies.slotOf(ctx.executor());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    NbdRequest request = (NbdRequest) msg;
    long decodedNanos = System.nanoTime();
    replies.readStarted();
    if (disconnecting) {
      release(request);
      return;
    }
    int error = validate(request);
    if (error != 0) {
      release(request);
      LOG.fine(() -> "NBD request type " + request.type() + " rejected with errno " + error);
      reply(request.cookie(), request.type(), error);
      latencies.record(request.type(), latencySlot, System.nanoTime() - decodedNanos);
      return;
    }
    boolean fua = (request.flags() & Nbd.CMD_FLAG_FUA) != 0;
    switch (request.type()) {
      case Nbd.CMD_READ -> read(request, decodedNanos);
      case Nbd.CMD_WRITE -> {
        Op op = start(request, null, decodedNanos);
        image.write(request.offset(), request.payload(), fua, op);
      }
      case Nbd.CMD_FLUSH -> track(request, image.flush(), decodedNanos);
      case Nbd.CMD_TRIM ->
          track(request, image.trim(request.offset(), request.length(), fua), decodedNanos);
      case Nbd.CMD_WRITE_ZEROES ->
          track(
              request,
              image.writeZeroes(request.offset(), request.length(), fua, zeroing(request.flags())),
              decodedNanos);
      case Nbd.CMD_CACHE ->
          track(request, image.cache(request.offset(), request.length()), decodedNanos);
      case Nbd.CMD_BLOCK_STATUS -> blockStatus(request, decodedNanos);
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
    boolean writes = type == Nbd.CMD_WRITE || type == Nbd.CMD_TRIM || type == Nbd.CMD_WRITE_ZEROES;
    if (!writes && type != Nbd.CMD_READ && type != Nbd.CMD_CACHE && type != Nbd.CMD_BLOCK_STATUS) {
      return Nbd.EINVAL;
    }
    if (request.payloadDropped()) {
      return Nbd.EINVAL;
    }
    boolean fastZero = (request.flags() & Nbd.CMD_FLAG_FAST_ZERO) != 0;
    if (fastZero && type != Nbd.CMD_WRITE_ZEROES) {
      return Nbd.EINVAL;
    }
    if (type == Nbd.CMD_BLOCK_STATUS && (!session.baseAllocation() || request.length() == 0)) {
      return Nbd.EINVAL;
    }
    if (writes && (session.readOnly() || image.readOnly())) {
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
    if (fastZero && (request.flags() & Nbd.CMD_FLAG_NO_HOLE) != 0) {
      return Nbd.ENOTSUP; // zeros that must stay allocated are written: never fast
    }
    return 0;
  }

  private static BlockImage.Zeroing zeroing(int flags) {
    if ((flags & Nbd.CMD_FLAG_FAST_ZERO) != 0) {
      return BlockImage.Zeroing.FAST;
    }
    return (flags & Nbd.CMD_FLAG_NO_HOLE) != 0
        ? BlockImage.Zeroing.ALLOCATE
        : BlockImage.Zeroing.PUNCH;
  }

  /**
   * The reply is built in one buffer: the header, then the data the image copies in right behind
   * it, so a read costs one buffer and one write to the socket. The error field is patched on
   * failure, when the data is dropped.
   */
  private void read(NbdRequest request, long decodedNanos) {
    int length = (int) request.length();
    ByteBuf reply;
    if (!session.structuredReplies()) {
      reply = ctx.alloc().directBuffer(Nbd.SIMPLE_REPLY_HEADER + length);
      NbdReplies.simple(reply, 0, request.cookie());
    } else if (length == 0) {
      send(NbdReplies.none(ctx.alloc(), request.cookie())); // OFFSET_DATA may not be empty
      latencies.record(request.type(), latencySlot, System.nanoTime() - decodedNanos);
      return;
    } else {
      reply = ctx.alloc().directBuffer(NbdReplies.OFFSET_DATA_HEADER + length);
      NbdReplies.offsetData(reply, request.cookie(), request.offset(), length);
    }
    Op op = start(request, reply, decodedNanos);
    image.readInto(request.offset(), length, reply, op);
  }

  /**
   * Which blocks of the range hold data, at most {@link Nbd#MAX_BLOCK_STATUS_BYTES} of it (a
   * shorter answer than asked is allowed; clients ask again from its end). Not a hot path: the
   * chunk is built when the store answers.
   */
  private void blockStatus(NbdRequest request, long decodedNanos) {
    long offset = request.offset();
    long length = Math.min(request.length(), Nbd.MAX_BLOCK_STATUS_BYTES);
    long cookie = request.cookie();
    boolean one = (request.flags() & Nbd.CMD_FLAG_REQ_ONE) != 0;
    Op op = start(request, null, decodedNanos);
    image
        .allocation(offset, length)
        .whenComplete(
            (allocation, failure) -> {
              if (failure == null) {
                op.readReply =
                    NbdReplies.blockStatus(ctx.alloc(), cookie, offset, length, allocation, one);
                op.readLength = -1;
              }
              op.done(failure);
            });
  }

  /** Counts a request in flight (pausing reads at the limit) and takes an op to complete it. */
  private Op start(NbdRequest request, ByteBuf readReply, long decodedNanos) {
    inFlight.started();
    Op op = freeOps.pollFirst();
    if (op == null) {
      op = new Op();
    }
    op.cookie = request.cookie();
    op.type = request.type();
    op.readReply = readReply;
    op.readLength = (int) request.length();
    op.decodedNanos = decodedNanos;
    return op;
  }

  private void track(NbdRequest request, CompletionStage<?> stage, long decodedNanos) {
    Op op = start(request, null, decodedNanos);
    stage.whenComplete((value, failure) -> op.done(failure));
  }

  /**
   * One request in flight, reused once its reply is written: at most {@code maxInFlight} exist per
   * connection, so the hot path allocates none.
   */
  private final class Op implements BlockImage.Done {
    long cookie;
    int type;
    ByteBuf readReply; // header + data for a READ, a whole BLOCK_STATUS chunk, else null
    int readLength; // the READ's data after the header; -1: readReply is complete as it is
    long decodedNanos; // when the request was decoded: its latency runs to the reply's write
    private Throwable failure;
    private final Runnable completeOnLoop = () -> complete(failure);

    @Override
    public void done(Throwable failure) {
      if (ctx.executor().inEventLoop()) {
        complete(failure);
      } else {
        this.failure = failure;
        ctx.executor().execute(completeOnLoop);
      }
    }

    private void complete(Throwable failure) {
      this.failure = null;
      ByteBuf data = readReply;
      int readLength = this.readLength;
      readReply = null;
      long cookie = this.cookie;
      int type = this.type;
      long decodedNanos = this.decodedNanos;
      freeOps.addFirst(this);
      inFlight.finished();
      if (!ctx.channel().isActive()) {
        if (data != null) {
          data.release();
        }
        return;
      }
      if (data != null && failure != null) {
        data.release();
      }
      if (failure != null) {
        Throwable cause = ObjectOpsException.unwrap(failure);
        int error;
        if (cause instanceof ObjectOpsException e) {
          error = Nbd.errorFor(e.code());
        } else {
          LOG.log(Level.WARNING, "NBD command " + type + " on " + image.name() + " failed", cause);
          error = Nbd.EIO;
        }
        reply(cookie, type, error);
      } else if (data != null) {
        if (readLength >= 0) {
          data.writerIndex(data.writerIndex() + readLength);
        }
        send(data);
      } else {
        send(NbdReplies.simple(ctx.alloc().directBuffer(Nbd.SIMPLE_REPLY_HEADER), 0, cookie));
      }
      latencies.record(type, latencySlot, System.nanoTime() - decodedNanos);
      if (disconnecting) {
        closeIfDrained();
      } else {
        inFlight.resumeIfDrained(true); // the outbound buffer's level does not stop NBD reading
      }
    }
  }

  /** An error reply: a structured chunk where the command's replies are structured. */
  private void reply(long cookie, int type, int error) {
    boolean structured =
        session.structuredReplies() && (type == Nbd.CMD_READ || type == Nbd.CMD_BLOCK_STATUS);
    send(NbdReplies.error(ctx.alloc(), structured, cookie, error));
  }

  /**
   * Writes a reply; flushes once per batch: at the end of a read batch (or every {@link
   * #FLUSH_BYTES} within one), or for completions that arrive outside one (journal acks, disk reads
   * reaped from the I/O queue), once after the loop pass's I/O events, in a task, so every reply of
   * the pass goes out in one write.
   */
  private void send(ByteBuf reply) {
    replies.send(reply);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    replies.readComplete();
    ctx.fireChannelReadComplete();
  }

  private void closeIfDrained() {
    if (inFlight.inFlight() == 0) {
      replies.flushNow(); // close() would drop replies written but not flushed
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
    ConnectionErrors.closeAfter(ctx, cause, LOG, "NBD connection failed");
  }
}
