package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.ConnectionErrors;
import io.tidestore.osd.net.InFlightLimit;
import io.tidestore.osd.net.ReadGate;
import io.tidestore.osd.net.ReplyFlusher;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Serves one connection: the HELLO handshake, PING and SHARD_MAP itself, object ops through {@link
 * ObjectOps}. Replies are written as ops complete, in any order, matched by request id.
 *
 * <p>Every object op is checked against the client's grants ({@link OpAccess}) before it reaches
 * the store; a refused one gets EPERM and the connection stays usable.
 *
 * <p>A malformed body or an unknown op gets an error reply and the connection stays usable (the
 * framing is intact); protocol violations (no HELLO first, wrong magic or version) get an error
 * reply and a close. Backpressure: at {@link ServerLimits#maxInFlight} ops in flight, or when the
 * outbound buffer is over its high-water mark, the server stops reading the socket until replies
 * drain.
 *
 * <p>One instance per channel; state is confined to the channel's event loop.
 */
// Netty write futures: a failed write closes the channel and reaches exceptionCaught.
@SuppressWarnings("FutureReturnValueIgnored")
final class ObjectProtocolHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(ObjectProtocolHandler.class.getName());

  private final ServerContext server;
  private final ServerLimits limits;
  private final OpLatencies latencies;
  private InFlightLimit inFlight;
  private ReplyFlusher replies;
  private ChannelHandlerContext ctx;
  private int latencySlot = -1;
  private long decodedNanos; // when the frame being dispatched was decoded
  private boolean helloDone;
  private OpAccess access; // set by HELLO: the client's caps, from its TLS session
  private ScheduledFuture<?> helloTimer;

  ObjectProtocolHandler(ServerContext server, ServerLimits limits) {
    this(server, limits, OpLatencies.NONE);
  }

  ObjectProtocolHandler(ServerContext server, ServerLimits limits, OpLatencies latencies) {
    this.server = server;
    this.limits = limits;
    this.latencies = latencies;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.inFlight = new InFlightLimit(ReadGate.of(ctx.channel()), limits.maxInFlight());
    this.replies = new ReplyFlusher(ctx, ReplyFlusher.Policy.AT_ONCE, Integer.MAX_VALUE);
    this.latencySlot = latencies.slotOf(ctx.executor());
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    helloTimer =
        ctx.executor()
            .schedule(
                () -> {
                  if (!helloDone && ctx.channel().isActive()) {
                    LOG.warning(ctx.channel().remoteAddress() + ": no HELLO in time, closing");
                    ctx.close();
                  }
                },
                limits.helloTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (helloTimer != null) {
      helloTimer.cancel(false);
    }
    ctx.fireChannelInactive();
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
      if (helloDone) {
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
  private void send(ByteBuf reply) {
    replies.send(reply);
  }

  private void dispatch(Frame frame) {
    int op = frame.op();
    long id = frame.requestId();
    ByteBuf body = frame.body();
    if (!helloDone) {
      hello(frame);
      return;
    }
    switch (op) {
      case Op.HELLO -> throw new OpException(Status.EPROTO, "HELLO sent twice");
      case Op.PING -> {
        if (body.readableBytes() > FrameDescriptor.MAX_PING) {
          throw new OpException(Status.EMSGSIZE, "ping payload above " + FrameDescriptor.MAX_PING);
        }
        ByteBuf reply = Replies.begin(ctx.alloc(), op, id, body.readableBytes());
        reply.writeBytes(body);
        send(Wire.finish(reply, 0));
      }
      case Op.SHARD_MAP -> {
        RequestBodies.end(body, op);
        ShardMap map = server.shardMap();
        ByteBuf reply =
            Replies.begin(ctx.alloc(), op, id, 8 + 2 * map.reactors() + 2 * map.shards());
        map.writeTo(reply);
        send(Wire.finish(reply, 0));
      }
      case Op.WRITE,
          Op.READ,
          Op.STAT,
          Op.TRUNCATE,
          Op.REMOVE,
          Op.SET_XATTR,
          Op.GET_XATTR,
          Op.RM_XATTR ->
          objectOp(op, id, body);
      case Op.LIST -> list(id, body);
      default -> {
        LOG.warning(ctx.channel().remoteAddress() + ": unknown " + Op.name(op) + ", id " + id);
        throw new OpException(Status.EOPNOTSUPP, "unknown " + Op.name(op));
      }
    }
  }

  private void hello(Frame frame) {
    ByteBuf body = frame.body();
    String problem = null;
    if (frame.op() != Op.HELLO) {
      problem = "first frame must be HELLO, got " + Op.name(frame.op());
    } else if (body.readableBytes() != 8
        || body.getInt(body.readerIndex()) != FrameDescriptor.MAGIC) {
      problem = "HELLO without the protocol magic";
    } else {
      int min = body.getUnsignedShort(body.readerIndex() + 4);
      int max = body.getUnsignedShort(body.readerIndex() + 6);
      if (min > FrameDescriptor.VERSION || max < FrameDescriptor.VERSION) {
        problem =
            "no common version: client " + min + ".." + max + ", server " + FrameDescriptor.VERSION;
      }
    }
    if (problem != null) {
      LOG.warning(ctx.channel().remoteAddress() + ": " + problem + ", closing");
      ctx.writeAndFlush(
              Replies.error(ctx.alloc(), frame.op(), frame.requestId(), Status.EPROTO, problem))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    helloDone = true;
    helloTimer.cancel(false);
    access = new OpAccess(server.security(), ctx.channel());
    ByteBuf reply = Replies.begin(ctx.alloc(), Op.HELLO, frame.requestId(), 8);
    reply.writeShort(FrameDescriptor.VERSION);
    reply.writeShort(server.reactorOf(ctx.channel().eventLoop()));
    reply.writeShort(server.reactorCount());
    reply.writeShort(0);
    send(Wire.finish(reply, 0));
  }

  private void objectOp(int op, long id, ByteBuf body) {
    ObjectOps ops = server.ops();
    if (ops == null) {
      throw new OpException(Status.EOPNOTSUPP, "this OSD serves no object store");
    }
    String name = RequestBodies.name(body);
    access.check(op, name);
    switch (op) {
      case Op.WRITE -> {
        long offset = RequestBodies.offset(body, "offset");
        int length = body.readableBytes();
        if (length > FrameDescriptor.MAX_DATA) {
          throw new OpException(Status.EMSGSIZE, "write of " + length + " bytes");
        }
        RequestBodies.checkRange(offset, length);
        track(op, id, ops.write(name, offset, body.readRetainedSlice(length)), this::replyEmpty);
      }
      case Op.READ -> {
        long offset = RequestBodies.offset(body, "offset");
        int length = RequestBodies.length(body, FrameDescriptor.MAX_DATA, "read length");
        RequestBodies.end(body, op);
        RequestBodies.checkRange(offset, length);
        track(op, id, ops.read(name, offset, length), this::replyData);
      }
      case Op.STAT -> {
        RequestBodies.end(body, op);
        track(op, id, ops.stat(name), this::replyStat);
      }
      case Op.TRUNCATE -> {
        long size = RequestBodies.offset(body, "size");
        RequestBodies.end(body, op);
        track(op, id, ops.truncate(name, size), this::replyEmpty);
      }
      case Op.REMOVE -> {
        RequestBodies.end(body, op);
        track(op, id, ops.remove(name), this::replyEmpty);
      }
      case Op.SET_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        int length = body.readableBytes();
        if (length > FrameDescriptor.MAX_XATTR_VALUE) {
          throw new OpException(Status.EMSGSIZE, "xattr value of " + length + " bytes");
        }
        track(op, id, ops.setXattr(name, key, body.readRetainedSlice(length)), this::replyEmpty);
      }
      case Op.GET_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        RequestBodies.end(body, op);
        track(op, id, ops.getXattr(name, key), this::replyData);
      }
      case Op.RM_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        RequestBodies.end(body, op);
        track(op, id, ops.removeXattr(name, key), this::replyEmpty);
      }
      default -> throw new IllegalStateException("not an object op: " + Op.name(op));
    }
  }

  // LIST carries a shard, not an object name: parsed separately.
  private void list(long id, ByteBuf body) {
    ObjectOps ops = server.ops();
    if (ops == null) {
      throw new OpException(Status.EOPNOTSUPP, "this OSD serves no object store");
    }
    Wire.need(body, 8, "list shard and count");
    long shard = body.readUnsignedInt();
    long max = body.readUnsignedInt();
    String after = Wire.readString(body, FrameDescriptor.MAX_NAME, "list cursor");
    RequestBodies.end(body, Op.LIST);
    access.checkList();
    int shards = server.shardMap().shards();
    if (shard >= shards) {
      throw new OpException(Status.EINVAL, "shard " + shard + " of " + shards);
    }
    if (max < 1 || max > 1024) {
      throw new OpException(Status.EINVAL, "list count " + max + " outside 1..1024");
    }
    track(Op.LIST, id, ops.list((int) shard, after, (int) max), this::replyList);
  }

  private <T> void track(int op, long id, CompletionStage<T> stage, Encoder<T> encoder) {
    inFlight.started();
    stage.whenComplete(new Completion<>(op, id, encoder, decodedNanos));
  }

  /** Writes one reply; runs on any thread, finishes the bookkeeping on the loop. */
  private final class Completion<T> implements BiConsumer<T, Throwable> {
    private final int op;
    private final long id;
    private final Encoder<T> encoder;
    private final long decodedNanos;

    Completion(int op, long id, Encoder<T> encoder, long decodedNanos) {
      this.op = op;
      this.id = id;
      this.encoder = encoder;
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
      latencies.record(op, latencySlot, System.nanoTime() - decodedNanos);
      inFlight.resumeIfDrained(ctx.channel().isWritable());
    }
  }

  @FunctionalInterface
  private interface Encoder<T> {
    void encode(int op, long id, T value);
  }

  private void replyEmpty(int op, long id, Void unused) {
    send(Replies.ok(ctx.alloc(), op, id));
  }

  private void replyData(int op, long id, ByteBuf data) {
    ctx.write(Wire.finish(Replies.begin(ctx.alloc(), op, id, 0), data.readableBytes()));
    send(data);
  }

  private void replyStat(int op, long id, ObjectInfo stat) {
    ByteBuf reply = Replies.begin(ctx.alloc(), op, id, 16);
    reply.writeLong(stat.size());
    reply.writeLong(stat.mtimeNanos());
    send(Wire.finish(reply, 0));
  }

  private void replyList(int op, long id, NamePage page) {
    ByteBuf reply = Replies.begin(ctx.alloc(), op, id, 5 + 64 * page.names().size());
    reply.writeInt(page.names().size());
    for (String name : page.names()) {
      Wire.writeString(reply, name);
    }
    reply.writeByte(page.more() ? 1 : 0);
    send(Wire.finish(reply, 0));
  }

  /**
   * The error reply for {@code cause}: a refused request's own status, a failed op's status from
   * {@link OpsStatus}, else EIO (logged: nothing should fail that way).
   */
  private void replyFailure(int op, long id, Throwable cause) {
    switch (cause) {
      case OpException e -> replyError(op, id, e.status(), e.getMessage());
      case ObjectOpsException e -> {
        int status = OpsStatus.of(e.code());
        replyError(op, id, status, OpsStatus.message(status, e));
      }
      default -> {
        LOG.log(Level.WARNING, Op.name(op) + " id " + id + " failed", cause);
        replyError(op, id, Status.EIO, String.valueOf(cause));
      }
    }
  }

  private void replyError(int op, long id, int status, String message) {
    send(Replies.error(ctx.alloc(), op, id, status, message));
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    inFlight.writabilityChanged(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.closeAfter(ctx, cause, LOG, "closing after error");
  }
}
