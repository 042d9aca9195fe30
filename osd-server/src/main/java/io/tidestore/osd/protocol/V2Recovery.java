package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Recovery's OSD-to-OSD ops of protocol v2 (docs/protocol.md, "Version 2"): GET_LOG, PUSH, PULL,
 * LOG_SYNC and LIST_PG. Each request starts with the v2 prefix (client and tid 0) and the PG's
 * {@code seed u32}. Readers throw {@link OpException} on malformed input. Stateless.
 */
public final class V2Recovery {
  /** A member's PG log (tail and entries). */
  public static final int GET_LOG = 0x32;

  /** A piece of an object for the member to hold. */
  public static final int PUSH = 0x33;

  /** A piece of an object the member holds. */
  public static final int PULL = 0x34;

  /** The member's log made the sender's. */
  public static final int LOG_SYNC = 0x35;

  /** Names of the PG's objects on the member, a page at a time. */
  public static final int LIST_PG = 0x36;

  private static final int MISSING = 1;
  private static final int FIRST = 2;
  private static final int LAST = 4;

  /** Most entries in one GET_LOG reply or LOG_SYNC: more than any log keeps. */
  private static final int MAX_ENTRIES = 1 << 16;

  private V2Recovery() {}

  /** The prefix and seed every recovery op starts with. */
  public static void writeHeader(ByteBuf out, long epoch, PgId pg) {
    V2.writePrefix(out, epoch, pg.pool(), 0, 0);
    out.writeInt(pg.seed());
  }

  /** The PG a recovery op names; its epoch in {@code epochOut[0]}. */
  public static PgId readHeader(ByteBuf body, long[] epochOut) {
    Wire.need(body, V2.PREFIX + 4, "recovery op header");
    epochOut[0] = body.readUnsignedInt();
    long pool = body.readUnsignedInt();
    body.skipBytes(16);
    int seed = body.readInt();
    if (pool > Integer.MAX_VALUE) {
      throw new OpException(Status.EINVAL, "pool id " + pool + " out of range");
    }
    return new PgId((int) pool, seed);
  }

  static void writeEversion(ByteBuf out, Eversion v) {
    out.writeInt((int) v.epoch()).writeLong(v.version());
  }

  static Eversion readEversion(ByteBuf in, String what) {
    Wire.need(in, Eversion.BYTES, what);
    long epoch = in.readUnsignedInt();
    long version = in.readLong();
    try {
      return new Eversion(epoch, version);
    } catch (IllegalArgumentException e) {
      throw new OpException(Status.EBADMSG, what + ": " + e.getMessage());
    }
  }

  private static void writeEntries(ByteBuf out, List<PgLogEntry> entries) {
    out.writeInt(entries.size());
    for (PgLogEntry e : entries) {
      byte[] bytes = e.encode();
      out.writeShort(bytes.length).writeBytes(bytes);
    }
  }

  private static List<PgLogEntry> readEntries(ByteBuf in) {
    Wire.need(in, 4, "entry count");
    long n = in.readUnsignedInt();
    if (n > MAX_ENTRIES) {
      throw new OpException(Status.EMSGSIZE, n + " log entries");
    }
    // Sized by the bytes there are (an entry takes at least its length), never by the count.
    List<PgLogEntry> entries = new ArrayList<>((int) Math.min(n, in.readableBytes() / 2));
    for (long i = 0; i < n; i++) {
      Wire.need(in, 2, "entry length");
      int length = in.readUnsignedShort();
      Wire.need(in, length, "entry");
      byte[] bytes = new byte[length];
      in.readBytes(bytes);
      try {
        entries.add(PgLogEntry.decode(bytes));
      } catch (IllegalArgumentException e) {
        throw new OpException(Status.EBADMSG, "log entry: " + e.getMessage());
      }
    }
    return entries;
  }

  /** GET_LOG reply, after the epoch. */
  public static void writeLog(ByteBuf out, LogCopy log) {
    writeEversion(out, log.tail());
    writeEntries(out, log.entries());
  }

  public static LogCopy readLog(ByteBuf in) {
    Eversion tail = readEversion(in, "log tail");
    return new LogCopy(tail, readEntries(in));
  }

  /** LOG_SYNC body, after the header. */
  public static void writeLogSync(ByteBuf out, LogSync sync) {
    writeEversion(out, sync.tail());
    out.writeInt(sync.remove().size());
    for (Eversion v : sync.remove()) {
      writeEversion(out, v);
    }
    writeEntries(out, sync.add());
  }

  public static LogSync readLogSync(ByteBuf in) {
    Eversion tail = readEversion(in, "log tail");
    Wire.need(in, 4, "removal count");
    long n = in.readUnsignedInt();
    if (n > MAX_ENTRIES) {
      throw new OpException(Status.EMSGSIZE, n + " log removals");
    }
    List<Eversion> remove = new ArrayList<>((int) Math.min(n, in.readableBytes() / Eversion.BYTES));
    for (long i = 0; i < n; i++) {
      remove.add(readEversion(in, "removed version"));
    }
    LogSync sync = new LogSync(tail, remove, readEntries(in));
    RequestBodies.end(in, LOG_SYNC);
    return sync;
  }

  /**
   * A chunk after its object's name (PUSH body after the header and name; PULL reply after the
   * epoch, with the name): {@code flags u8 (1 missing, 2 first, 4 last), offset u64, size u64,
   * xattr count u16, (key str16, value length u32, value) each}, then the data; the data is the
   * frame's trailing buffer.
   */
  public static void writeChunkFields(ByteBuf out, ObjectChunk c) {
    Wire.writeString(out, c.name());
    out.writeByte((c.missing() ? MISSING : 0) | (c.first() ? FIRST : 0) | (c.last() ? LAST : 0));
    out.writeLong(c.offset()).writeLong(c.size());
    out.writeShort(c.xattrs().size());
    for (var x : c.xattrs().entrySet()) {
      Wire.writeString(out, x.getKey());
      out.writeInt(x.getValue().length).writeBytes(x.getValue());
    }
  }

  /** Reads a chunk; its data is a retained slice of {@code in}, which the chunk owns. */
  public static ObjectChunk readChunk(ByteBuf in) {
    String name = RequestBodies.name(in);
    Wire.need(in, 1 + 8 + 8 + 2, "chunk fields");
    int flags = RequestBodies.flags(in, MISSING | FIRST | LAST, "chunk flags");
    long offset = RequestBodies.offset(in, "chunk offset");
    long size = RequestBodies.offset(in, "object size");
    int count = in.readUnsignedShort();
    SortedMap<String, byte[]> xattrs = new TreeMap<>();
    String previous = null;
    for (int i = 0; i < count; i++) {
      String key = RequestBodies.xattrKey(in);
      // In the order the sender's sorted map lists them, each once: a key sent twice would lose
      // one of its values here without a word.
      if (previous != null && key.compareTo(previous) <= 0) {
        throw new OpException(
            Status.EBADMSG, "chunk xattr " + key + " after " + previous + ": not ascending");
      }
      previous = key;
      int length = RequestBodies.length(in, FrameDescriptor.MAX_XATTR_VALUE, "xattr value");
      Wire.need(in, length, "xattr value");
      byte[] value = new byte[length];
      in.readBytes(value);
      xattrs.put(key, value);
    }
    if (in.readableBytes() > FrameDescriptor.MAX_DATA) {
      throw new OpException(Status.EMSGSIZE, "chunk of " + in.readableBytes() + " bytes");
    }
    RequestBodies.checkRange(offset, in.readableBytes());
    ByteBuf data =
        in.isReadable() ? in.readRetainedSlice(in.readableBytes()) : Unpooled.EMPTY_BUFFER;
    return new ObjectChunk(
        name,
        (flags & MISSING) != 0,
        (flags & FIRST) != 0,
        (flags & LAST) != 0,
        offset,
        size,
        xattrs,
        data);
  }

  /** PULL body, after the header: {@code name str16, offset u64, max u32}. */
  public static void writePull(ByteBuf out, String name, long offset, int max) {
    Wire.writeString(out, name);
    out.writeLong(offset).writeInt(max);
  }

  /** LIST_PG body, after the header: {@code max u32, after str16}. */
  public static void writeListPg(ByteBuf out, String after, int max) {
    out.writeInt(max);
    Wire.writeString(out, after);
  }

  /** A page of names (LIST_PG reply after the epoch, and version 1's LIST reply). */
  public static void writeNamePage(ByteBuf out, NamePage page) {
    out.writeInt(page.names().size());
    for (String name : page.names()) {
      Wire.writeString(out, name);
    }
    out.writeByte(page.more() ? 1 : 0);
  }

  public static NamePage readNamePage(ByteBuf in) {
    Wire.need(in, 4, "list count");
    long count = in.readUnsignedInt();
    List<String> names = new ArrayList<>((int) Math.min(count, 1024));
    for (long i = 0; i < count; i++) {
      names.add(Wire.readString(in, FrameDescriptor.MAX_NAME, "listed name"));
    }
    return new NamePage(names, RequestBodies.bool(in, "list more flag"));
  }
}
