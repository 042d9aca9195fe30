package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectOps;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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
final class ObjectProtocolHandler extends PipelinedOpHandler {
  private static final Logger LOG = Logger.getLogger(ObjectProtocolHandler.class.getName());

  private final ServerContext server;
  private boolean helloDone;
  private int version = FrameDescriptor.VERSION;
  private OpAccess access; // set by HELLO: the client's caps, from its TLS session
  private ScheduledFuture<?> helloTimer;

  ObjectProtocolHandler(ServerContext server, ServerLimits limits) {
    this(server, limits, OpLatencies.NONE);
  }

  ObjectProtocolHandler(ServerContext server, ServerLimits limits, OpLatencies latencies) {
    super(LOG, limits, latencies);
    this.server = server;
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
                limits().helloTimeout().toNanos(),
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
  boolean measuresRefusals() {
    return helloDone;
  }

  @Override
  ByteBuf begin(int op, long id, int bodyHint) {
    return Replies.begin(ctx.alloc(), op, id, bodyHint);
  }

  @Override
  void replyError(int op, long id, int status, String message) {
    send(Replies.error(ctx.alloc(), op, id, status, message));
  }

  @Override
  void dispatch(Frame frame) {
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
      // Version 2 only where there is a cluster to serve: a standalone daemon, or a cluster OSD
      // not yet registered, speaks version 1.
      int highest = server.clusterOps() != null ? V2.VERSION : FrameDescriptor.VERSION;
      version = Math.min(max, highest);
      if (min > highest || max < FrameDescriptor.VERSION) {
        problem =
            "no common version: client "
                + min
                + ".."
                + max
                + ", server "
                + FrameDescriptor.VERSION
                + ".."
                + highest
                + (highest == FrameDescriptor.VERSION
                    ? " (version 2 is a cluster OSD's, once registered with its monitors)"
                    : "");
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
    reply.writeShort(version);
    reply.writeShort(server.reactorOf(ctx.channel().eventLoop()));
    reply.writeShort(server.reactorCount());
    reply.writeShort(0);
    if (version != V2.VERSION) {
      send(Wire.finish(reply, 0));
    } else {
      // Flushed now: this handler leaves the pipeline, and with it the end-of-read flush.
      ctx.writeAndFlush(Wire.finish(reply, 0));
      ctx.pipeline()
          .replace(
              this,
              "ops",
              new ClusterProtocolHandler(server.clusterOps(), limits(), latencies, access));
    }
  }

  private void objectOp(int op, long id, ByteBuf body) {
    ObjectOps ops = server.ops();
    if (ops == null) {
      throw new OpException(Status.EOPNOTSUPP, "this OSD serves no object store");
    }
    String name = RequestBodies.name(body);
    access.check(op, name);
    switch (op) {
      case Op.WRITE, Op.TRUNCATE, Op.REMOVE, Op.SET_XATTR, Op.RM_XATTR ->
          track(op, id, mutate(ops, name, V2.readMutation(op, body)), this::replyEmpty);
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
      case Op.GET_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        RequestBodies.end(body, op);
        track(op, id, ops.getXattr(name, key), this::replyData);
      }
      default -> throw new IllegalStateException("not an object op: " + Op.name(op));
    }
  }

  /** A version 1 change: the same fields as version 2's, each its own {@link ObjectOps} call. */
  private static CompletionStage<Void> mutate(ObjectOps ops, String name, Mutation m) {
    return switch (m) {
      case Mutation.Write w -> ops.write(name, w.offset(), w.data());
      case Mutation.Truncate t -> ops.truncate(name, t.size());
      case Mutation.Remove _ -> ops.remove(name);
      case Mutation.Punch p -> ops.punch(name, p.offset(), p.length());
      case Mutation.SetXattr x -> ops.setXattr(name, x.key(), x.value());
      case Mutation.RemoveXattr x -> ops.removeXattr(name, x.key());
    };
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

  private void replyList(int op, long id, NamePage page) {
    ByteBuf reply = Replies.begin(ctx.alloc(), op, id, 5 + 64 * page.names().size());
    V2Recovery.writeNamePage(reply, page);
    send(Wire.finish(reply, 0));
  }
}
