package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.store.api.Allocation;
import java.nio.ByteBuffer;

/**
 * Object protocol version 2, the cluster's (docs/protocol.md, "Version 2"): the frames of version
 * 1, each request body prefixed by {@code epoch u32, pool u32, client u64, tid u64} and each reply
 * body by the replier's {@code epoch u32}; and the OSDs' own ops, {@link #REP_OP} and {@link
 * #PG_QUERY}. Readers throw {@link OpException} (EBADMSG and friends) on malformed input.
 * Stateless.
 */
public final class V2 {
  public static final int VERSION = 2;

  /** A primary's replicated op to a replica. */
  public static final int REP_OP = 0x30;

  /** A primary's query of a PG's log head and tail on a member. */
  public static final int PG_QUERY = 0x31;

  /**
   * A primary tells a member of the write set it activates the PG in the epoch of the prefix (the
   * member keeps it as its {@code last_active}); the body is PG_QUERY's.
   */
  public static final int ACTIVATE = 0x39;

  /**
   * An OSD holding a copy of a PG outside its acting set (a stray) asks the PG's primary whether
   * the copy may go: the body is PG_QUERY's with the asking OSD's id in the prefix's client field;
   * an empty reply says yes (the PG is active+clean without it), TRY_AGAIN not yet.
   */
  public static final int STRAY_QUERY = 0x3a;

  /** Bytes of the request prefix. */
  public static final int PREFIX = 24;

  private V2() {}

  /** The request prefix; the caller writes the op's own fields after it. */
  public static void writePrefix(ByteBuf out, long epoch, int pool, long client, long tid) {
    out.writeInt((int) epoch).writeInt(pool).writeLong(client).writeLong(tid);
  }

  /** A client op's prefix and object name. */
  public static ClientRequest readClientRequest(ByteBuf body) {
    Wire.need(body, PREFIX, "v2 request prefix");
    long epoch = body.readUnsignedInt();
    long pool = body.readUnsignedInt();
    if (pool > Integer.MAX_VALUE) {
      throw new OpException(Status.EINVAL, "pool id " + pool + " out of range");
    }
    long client = body.readLong();
    long tid = body.readLong();
    return new ClientRequest(epoch, (int) pool, RequestBodies.name(body), client, tid);
  }

  /**
   * The fields of a mutation {@code op} (a v1 op code) after its object name; the data or value is
   * a retained slice of {@code body}, which the mutation owns.
   */
  public static Mutation readMutation(int op, ByteBuf body) {
    return switch (op) {
      case Op.WRITE -> {
        long offset = RequestBodies.offset(body, "offset");
        int length = body.readableBytes();
        if (length > FrameDescriptor.MAX_DATA) {
          throw new OpException(Status.EMSGSIZE, "write of " + length + " bytes");
        }
        RequestBodies.checkRange(offset, length);
        yield new Mutation.Write(offset, body.readRetainedSlice(length));
      }
      case Op.TRUNCATE -> {
        long size = RequestBodies.offset(body, "size");
        RequestBodies.end(body, op);
        yield new Mutation.Truncate(size);
      }
      case Op.REMOVE -> {
        RequestBodies.end(body, op);
        yield new Mutation.Remove();
      }
      case Op.PUNCH -> {
        long offset = RequestBodies.offset(body, "offset");
        long length = RequestBodies.offset(body, "length");
        RequestBodies.end(body, op);
        RequestBodies.checkBlocks(offset, length);
        yield new Mutation.Punch(offset, length);
      }
      case Op.SET_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        int length = body.readableBytes();
        if (length > FrameDescriptor.MAX_XATTR_VALUE) {
          throw new OpException(Status.EMSGSIZE, "xattr value of " + length + " bytes");
        }
        yield new Mutation.SetXattr(key, body.readRetainedSlice(length));
      }
      case Op.RM_XATTR -> {
        String key = RequestBodies.xattrKey(body);
        RequestBodies.end(body, op);
        yield new Mutation.RemoveXattr(key);
      }
      default -> throw new OpException(Status.EOPNOTSUPP, Op.name(op) + " is no mutation");
    };
  }

  /** The v1 op code of a mutation. */
  public static int opOf(Mutation m) {
    return switch (m) {
      case Mutation.Write _ -> Op.WRITE;
      case Mutation.Truncate _ -> Op.TRUNCATE;
      case Mutation.Remove _ -> Op.REMOVE;
      case Mutation.Punch _ -> Op.PUNCH;
      case Mutation.SetXattr _ -> Op.SET_XATTR;
      case Mutation.RemoveXattr _ -> Op.RM_XATTR;
    };
  }

  /**
   * Writes a mutation's fields after the object name, except its data or value: that is the frame's
   * trailing buffer ({@link #payload}).
   */
  public static void writeMutationFields(ByteBuf out, Mutation m) {
    switch (m) {
      case Mutation.Write w -> out.writeLong(w.offset());
      case Mutation.Truncate t -> out.writeLong(t.size());
      case Mutation.Remove _ -> {}
      case Mutation.Punch p -> {
        out.writeLong(p.offset());
        out.writeLong(p.length());
      }
      case Mutation.SetXattr x -> Wire.writeString(out, x.key());
      case Mutation.RemoveXattr x -> Wire.writeString(out, x.key());
    }
  }

  /** The data or value a mutation carries after its fields, or null. */
  public static ByteBuf payload(Mutation m) {
    return switch (m) {
      case Mutation.Write w -> w.data();
      case Mutation.SetXattr x -> x.value();
      default -> null;
    };
  }

  /**
   * REP_OP body, after the prefix (epoch, pool, the entry's client and tid): {@code seed u32, entry
   * length u16, entry, op u8, object name str16}, the mutation's fields, then its payload.
   */
  public static void writeRepOp(ByteBuf out, RepOp op) {
    PgLogEntry e = op.entry();
    writePrefix(out, op.epoch(), op.pg().pool(), e.client(), e.tid());
    out.writeInt(op.pg().seed());
    byte[] entry = e.encode();
    out.writeShort(entry.length).writeBytes(entry);
    out.writeByte(opOf(op.mutation()));
    Wire.writeString(out, e.object());
    writeMutationFields(out, op.mutation());
  }

  public static RepOp readRepOp(ByteBuf body) {
    Wire.need(body, PREFIX + 6, "rep op header");
    long epoch = body.readUnsignedInt();
    int pool = body.readInt();
    body.skipBytes(16); // client and tid: the entry carries them
    int seed = body.readInt();
    int length = body.readUnsignedShort();
    Wire.need(body, length + 1, "rep op entry");
    byte[] bytes = new byte[length];
    body.readBytes(bytes);
    PgLogEntry entry;
    PgId pg;
    try {
      entry = PgLogEntry.decode(bytes);
      pg = new PgId(pool, seed);
    } catch (IllegalArgumentException ex) {
      throw new OpException(Status.EBADMSG, "rep op: " + ex.getMessage());
    }
    int op = body.readUnsignedByte();
    String name = RequestBodies.name(body);
    if (!name.equals(entry.object())) {
      throw new OpException(
          Status.EBADMSG, "rep op for " + name + " carries the entry of " + entry.object());
    }
    Mutation mutation = readMutation(op, body);
    // The primary makes the entry a DELETE exactly when the mutation removes the object; a
    // replica that took one without the other would log a history its object does not have.
    if (mutation.deletes() != (entry.op() == PgLogEntry.Op.DELETE)) {
      mutation.release();
      throw new OpException(
          Status.EBADMSG, "rep op's entry " + entry.op() + " with " + Op.name(op) + " of " + name);
    }
    return new RepOp(epoch, pg, entry, mutation);
  }

  /** PG_QUERY body: the prefix (epoch, pool, 0, 0), then {@code seed u32}. */
  public static void writePgQuery(ByteBuf out, long epoch, PgId pg) {
    writePrefix(out, epoch, pg.pool(), 0, 0);
    out.writeInt(pg.seed());
  }

  /** The PG a PG_QUERY names, and the asker's epoch in {@code epochOut[0]}. */
  public static PgId readPgQuery(ByteBuf body, long[] epochOut) {
    return readPgOp(body, epochOut, PG_QUERY);
  }

  /** STRAY_QUERY body: PG_QUERY's, with the asking OSD {@code osd} as the client. */
  public static void writeStrayQuery(ByteBuf out, long epoch, PgId pg, int osd) {
    writePrefix(out, epoch, pg.pool(), osd, 0);
    out.writeInt(pg.seed());
  }

  /**
   * The PG a STRAY_QUERY names; the asker's epoch in {@code out[0]} and its OSD id in {@code
   * out[1]}.
   */
  public static PgId readStrayQuery(ByteBuf body, long[] out) {
    Wire.need(body, PREFIX + 4, Op.name(STRAY_QUERY));
    long osd = body.getLong(body.readerIndex() + 8);
    if (osd < 0 || osd > Integer.MAX_VALUE) {
      throw new OpException(Status.EINVAL, "osd id " + osd + " out of range");
    }
    PgId pg = readPgOp(body, out, STRAY_QUERY);
    out[1] = osd;
    return pg;
  }

  /** The PG a PG_QUERY or an ACTIVATE ({@code op}) names, and the sender's epoch. */
  public static PgId readPgOp(ByteBuf body, long[] epochOut, int op) {
    Wire.need(body, PREFIX + 4, Op.name(op));
    epochOut[0] = body.readUnsignedInt();
    long pool = body.readUnsignedInt();
    body.skipBytes(16);
    int seed = body.readInt();
    RequestBodies.end(body, op);
    if (pool > Integer.MAX_VALUE) {
      throw new OpException(Status.EINVAL, "pool id " + pool + " out of range");
    }
    return new PgId((int) pool, seed);
  }

  /** Bytes of a PG_QUERY reply after the epoch. */
  public static final int PEER_INFO_BYTES = 2 * Eversion.BYTES + 8;

  /** PG_QUERY reply, after the epoch: head and tail eversions, {@code last_active u64}. */
  public static void writePeerInfo(ByteBuf out, PgPeerInfo info) {
    ByteBuffer b = ByteBuffer.allocate(PEER_INFO_BYTES);
    info.head().writeTo(b);
    info.tail().writeTo(b);
    b.putLong(info.lastActive());
    out.writeBytes(b.array());
  }

  public static PgPeerInfo readPeerInfo(ByteBuf body) {
    Wire.need(body, PEER_INFO_BYTES, "pg info");
    byte[] bytes = new byte[PEER_INFO_BYTES];
    body.readBytes(bytes);
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      Eversion head = Eversion.readFrom(b);
      Eversion tail = Eversion.readFrom(b);
      long lastActive = b.getLong();
      if (lastActive < 0) {
        throw new IllegalArgumentException("last_active " + lastActive + " is negative");
      }
      return new PgPeerInfo(head, tail, lastActive);
    } catch (IllegalArgumentException e) {
      throw new OpException(Status.EBADMSG, "pg info: " + e.getMessage());
    }
  }

  /** ALLOCATION's fields after the object name: which range to report. */
  public static void writeAllocationRequest(ByteBuf out, long offset, long length) {
    out.writeLong(offset);
    out.writeLong(length);
  }

  /**
   * An ALLOCATION reply: {@code size u64, count u32}, then {@code count} ranges {@code start u64,
   * end u64}, sorted, disjoint and inside the range asked.
   */
  public static void writeAllocation(ByteBuf out, Allocation a) {
    out.writeLong(a.size());
    out.writeInt(a.count());
    for (int i = 0; i < a.count(); i++) {
      out.writeLong(a.start(i));
      out.writeLong(a.end(i));
    }
  }

  /** The bytes an ALLOCATION reply takes. */
  public static int allocationBytes(Allocation a) {
    return 12 + 16 * a.count();
  }

  /** Reads an ALLOCATION reply; a malformed one is refused (EBADMSG). */
  public static Allocation readAllocation(ByteBuf body) {
    Wire.need(body, 12, "allocation reply");
    long size = body.readLong();
    long count = body.readUnsignedInt();
    if (size < 0 || count * 16 != body.readableBytes()) {
      throw new OpException(
          Status.EBADMSG, "allocation reply of size " + size + " with " + count + " ranges");
    }
    long[] ranges = new long[(int) count * 2];
    long last = 0;
    for (int i = 0; i < ranges.length; i += 2) {
      long start = body.readLong();
      long end = body.readLong();
      if (start < last || end <= start) {
        throw new OpException(
            Status.EBADMSG, "allocation range [" + start + ", " + end + ") out of order");
      }
      ranges[i] = start;
      ranges[i + 1] = end;
      last = end;
    }
    return new Allocation(size, ranges);
  }
}
