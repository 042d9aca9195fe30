package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.ClusterOps;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.RepOp;
import java.util.logging.Logger;

/**
 * Serves one protocol v2 connection once HELLO chose version 2 ({@link ObjectProtocolHandler} hands
 * the channel over): clients' object ops, which this OSD takes as the primary, and other OSDs'
 * REP_OP, PG_QUERY, recovery's and deep scrub's ops, all through {@link ClusterOps}. Every reply
 * body starts with this OSD's map epoch, so a sender on an older map learns that it is. Caps as in
 * version 1, on the request's pool; OSD ops need {@code *}. Replies in completion order;
 * backpressure as version 1. One per channel, on its event loop.
 */
final class ClusterProtocolHandler extends PipelinedOpHandler {
  private static final Logger LOG = Logger.getLogger(ClusterProtocolHandler.class.getName());

  private final ClusterOps ops;
  private final OpAccess access;

  ClusterProtocolHandler(
      ClusterOps ops, ServerLimits limits, OpLatencies latencies, OpAccess access) {
    super(LOG, limits, latencies);
    this.ops = ops;
    this.access = access;
  }

  @Override
  boolean measuresRefusals() {
    return false;
  }

  @Override
  void dispatch(Frame frame) {
    dispatch(frame.op(), frame.requestId(), frame.body());
  }

  private void dispatch(int op, long id, ByteBuf body) {
    switch (op) {
      case Op.HELLO -> throw new OpException(Status.EPROTO, "HELLO sent twice");
      case Op.PING -> {
        if (body.readableBytes() > FrameDescriptor.MAX_PING) {
          throw new OpException(Status.EMSGSIZE, "ping payload above " + FrameDescriptor.MAX_PING);
        }
        ByteBuf reply = begin(op, id, body.readableBytes());
        reply.writeBytes(body);
        send(Wire.finish(reply, 0));
      }
      case Op.WRITE, Op.TRUNCATE, Op.REMOVE, Op.PUNCH, Op.SET_XATTR, Op.RM_XATTR -> {
        ClientRequest request = clientRequest(op, body);
        Mutation mutation = V2.readMutation(op, body);
        track(op, id, ops.mutate(request, mutation), this::replyEmpty);
      }
      case Op.READ -> {
        ClientRequest request = clientRequest(op, body);
        long offset = RequestBodies.offset(body, "offset");
        int length = RequestBodies.length(body, FrameDescriptor.MAX_DATA, "read length");
        RequestBodies.end(body, op);
        RequestBodies.checkRange(offset, length);
        track(op, id, ops.read(request, offset, length), this::replyData);
      }
      case Op.STAT -> {
        ClientRequest request = clientRequest(op, body);
        RequestBodies.end(body, op);
        track(op, id, ops.stat(request), this::replyStat);
      }
      case Op.ALLOCATION -> {
        ClientRequest request = clientRequest(op, body);
        long offset = RequestBodies.offset(body, "offset");
        long length = RequestBodies.offset(body, "length");
        RequestBodies.end(body, op);
        RequestBodies.checkRange(offset, length);
        track(
            op,
            id,
            ops.allocation(request, offset, length),
            (o, i, allocation) -> {
              ByteBuf reply = begin(o, i, V2.allocationBytes(allocation));
              V2.writeAllocation(reply, allocation);
              send(Wire.finish(reply, 0));
            });
      }
      case Op.GET_XATTR -> {
        ClientRequest request = clientRequest(op, body);
        String key = RequestBodies.xattrKey(body);
        RequestBodies.end(body, op);
        track(op, id, ops.getXattr(request, key), this::replyData);
      }
      case V2.REP_OP -> {
        access.checkPeer(op);
        RepOp rep = V2.readRepOp(body);
        track(op, id, ops.replicate(rep), this::replyEmpty);
      }
      case V2.PG_QUERY -> {
        access.checkPeer(op);
        long[] epoch = new long[1];
        var pg = V2.readPgQuery(body, epoch);
        track(
            op,
            id,
            ops.pgQuery(epoch[0], pg),
            (o, i, info) -> {
              ByteBuf reply = begin(o, i, V2.PEER_INFO_BYTES);
              V2.writePeerInfo(reply, info);
              send(Wire.finish(reply, 0));
            });
      }
      case V2.ACTIVATE -> {
        access.checkPeer(op);
        long[] epoch = new long[1];
        var pg = V2.readPgOp(body, epoch, op);
        track(op, id, ops.activate(epoch[0], pg), this::replyEmpty);
      }
      case V2.STRAY_QUERY -> {
        access.checkPeer(op);
        long[] fields = new long[2];
        var pg = V2.readStrayQuery(body, fields);
        track(op, id, ops.strayQuery(fields[0], pg, (int) fields[1]), this::replyEmpty);
      }
      case V2Recovery.GET_LOG,
          V2Recovery.PUSH,
          V2Recovery.PULL,
          V2Recovery.LOG_SYNC,
          V2Recovery.LIST_PG -> {
        access.checkPeer(op);
        recoveryOp(op, id, body);
      }
      case V2Scrub.BLOCK_CRCS, V2Scrub.DEEP_SCRUB -> {
        access.checkPeer(op);
        scrubOp(op, id, body);
      }
      default -> throw new OpException(Status.EOPNOTSUPP, "unknown " + Op.name(op));
    }
  }

  private void scrubOp(int op, long id, ByteBuf body) {
    long[] epoch = new long[1];
    PgId pg = V2Recovery.readHeader(body, epoch);
    if (op == V2Scrub.BLOCK_CRCS) {
      String name = V2Scrub.readBlockCrcsRequest(body);
      track(
          op,
          id,
          ops.blockCrcs(epoch[0], pg, name),
          (o, i, digest) -> {
            ByteBuf reply = begin(o, i, V2Scrub.digestBytes(digest));
            V2Scrub.writeDigest(reply, digest);
            send(Wire.finish(reply, 0));
          });
    } else {
      RequestBodies.end(body, op);
      track(
          op,
          id,
          ops.deepScrub(epoch[0], pg),
          (o, i, report) -> {
            ByteBuf reply = begin(o, i, V2Scrub.reportHint(report));
            V2Scrub.writeReport(reply, report);
            send(Wire.finish(reply, 0));
          });
    }
  }

  private void recoveryOp(int op, long id, ByteBuf body) {
    long[] epoch = new long[1];
    PgId pg = V2Recovery.readHeader(body, epoch);
    switch (op) {
      case V2Recovery.GET_LOG -> {
        RequestBodies.end(body, op);
        track(
            op,
            id,
            ops.getLog(epoch[0], pg),
            (o, i, log) -> {
              ByteBuf reply = begin(o, i, 16 + 64 * log.entries().size());
              V2Recovery.writeLog(reply, log);
              send(Wire.finish(reply, 0));
            });
      }
      case V2Recovery.PUSH -> {
        ObjectChunk chunk = V2Recovery.readChunk(body);
        track(op, id, ops.push(epoch[0], pg, chunk), this::replyEmpty);
      }
      case V2Recovery.PULL -> {
        String name = RequestBodies.name(body);
        long offset = RequestBodies.offset(body, "offset");
        int max = RequestBodies.length(body, FrameDescriptor.MAX_DATA, "pull length");
        RequestBodies.end(body, op);
        track(
            op,
            id,
            ops.pull(epoch[0], pg, name, offset, max),
            (o, i, chunk) -> {
              ByteBuf reply = begin(o, i, 64 + Wire.utf8Length(chunk.name()));
              V2Recovery.writeChunkFields(reply, chunk);
              ctx.write(Wire.finish(reply, chunk.data().readableBytes()));
              send(chunk.data());
            });
      }
      case V2Recovery.LOG_SYNC -> {
        LogSync sync = V2Recovery.readLogSync(body);
        track(op, id, ops.logSync(epoch[0], pg, sync), this::replyEmpty);
      }
      case V2Recovery.LIST_PG -> {
        int max = RequestBodies.length(body, 1024, "list count");
        String after = Wire.readString(body, FrameDescriptor.MAX_NAME, "list cursor");
        RequestBodies.end(body, op);
        track(
            op,
            id,
            ops.listPg(epoch[0], pg, after, Math.max(1, max)),
            (o, i, page) -> {
              ByteBuf reply = begin(o, i, 5 + 64 * page.names().size());
              V2Recovery.writeNamePage(reply, page);
              send(Wire.finish(reply, 0));
            });
      }
      default -> throw new IllegalStateException(Op.name(op));
    }
  }

  private ClientRequest clientRequest(int op, ByteBuf body) {
    ClientRequest request = V2.readClientRequest(body);
    String pool = ops.poolName(request.pool());
    if (pool == null) {
      throw new ObjectOpsException(
          ObjectOpsException.Code.STALE_MAP,
          "no pool " + request.pool() + " in this OSD's map (epoch " + ops.epoch() + ")");
    }
    access.check(op, request.name(), pool);
    return request;
  }

  /** A success reply with this OSD's epoch written first. */
  @Override
  ByteBuf begin(int op, long id, int bodyHint) {
    ByteBuf reply = Replies.begin(ctx.alloc(), op, id, 4 + bodyHint);
    reply.writeInt((int) ops.epoch());
    return reply;
  }

  /** An error reply: this OSD's epoch, then the message. */
  @Override
  void replyError(int op, long id, int status, String message) {
    String text = message.length() > 1024 ? message.substring(0, 1024) : message;
    ByteBuf frame = Wire.begin(ctx.alloc(), op, 0, status, id, 6 + 3 * text.length());
    frame.writeInt((int) ops.epoch());
    Wire.writeString(frame, text);
    send(Wire.finish(frame, 0));
  }
}
