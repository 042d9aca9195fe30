package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;

/** A test's side of an NBD connection over an EmbeddedChannel: sends options and requests. */
final class NbdTestWire {
  final EmbeddedChannel ch;
  private final ByteBuf out = Unpooled.buffer();

  NbdTestWire(EmbeddedChannel ch) {
    this.ch = ch;
  }

  /** Everything the server wrote so far, appended to what is still unread. */
  ByteBuf out() {
    ch.runPendingTasks();
    for (ByteBuf part; (part = ch.readOutbound()) != null; ) {
      out.writeBytes(part);
      part.release();
    }
    return out;
  }

  /** Reads the greeting and answers with fixed newstyle and no zeroes. */
  NbdTestWire greeted() {
    ByteBuf o = out();
    assertEquals(Nbd.NBDMAGIC, o.readLong());
    assertEquals(Nbd.IHAVEOPT, o.readLong());
    o.skipBytes(2);
    ch.writeInbound(
        Unpooled.buffer().writeInt(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE | Nbd.CLIENT_FLAG_NO_ZEROES));
    return this;
  }

  void option(int option, ByteBuf data) {
    ByteBuf frame = Unpooled.buffer().writeLong(Nbd.IHAVEOPT).writeInt(option);
    ch.writeInbound(frame.writeInt(data.readableBytes()).writeBytes(data));
  }

  /** Reads one option reply of {@code type}; returns its data. */
  ByteBuf optionReply(int option, int type) {
    ByteBuf o = out();
    assertEquals(Nbd.OPTION_REPLY_MAGIC, o.readLong());
    assertEquals(option, o.readInt());
    assertEquals(type, o.readInt(), "reply type");
    return o.readSlice(o.readInt());
  }

  /** GO or INFO data: the name, no info requests. */
  static ByteBuf name(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    return Unpooled.buffer().writeInt(bytes.length).writeBytes(bytes).writeShort(0);
  }

  /** SET/LIST_META_CONTEXT data. */
  static ByteBuf metaContexts(String export, String... queries) {
    ByteBuf data = Unpooled.buffer();
    byte[] name = export.getBytes(StandardCharsets.UTF_8);
    data.writeInt(name.length).writeBytes(name).writeInt(queries.length);
    for (String q : queries) {
      byte[] bytes = q.getBytes(StandardCharsets.UTF_8);
      data.writeInt(bytes.length).writeBytes(bytes);
    }
    return data;
  }

  /** GO to {@code name}; returns the transmission flags. */
  int go(String name) {
    option(Nbd.OPT_GO, name(name));
    ByteBuf export = optionReply(Nbd.OPT_GO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_EXPORT, export.readUnsignedShort());
    export.skipBytes(8);
    int flags = export.readUnsignedShort();
    optionReply(Nbd.OPT_GO, Nbd.REP_INFO); // block sizes
    optionReply(Nbd.OPT_GO, Nbd.REP_ACK);
    return flags;
  }

  void request(int flags, int type, long cookie, long offset, long length) {
    ByteBuf r = Unpooled.buffer().writeInt(Nbd.REQUEST_MAGIC).writeShort(flags).writeShort(type);
    ch.writeInbound(r.writeLong(cookie).writeLong(offset).writeInt((int) length));
  }

  void write(long cookie, long offset, byte[] payload) {
    ByteBuf r = Unpooled.buffer().writeInt(Nbd.REQUEST_MAGIC).writeShort(0);
    r.writeShort(Nbd.CMD_WRITE).writeLong(cookie).writeLong(offset).writeInt(payload.length);
    ch.writeInbound(r.writeBytes(payload));
  }

  /** Reads a simple reply with {@code cookie} and {@code error}. */
  ByteBuf simpleReply(long cookie, int error) {
    ByteBuf o = out();
    assertEquals(Nbd.SIMPLE_REPLY_MAGIC, o.readInt(), "simple reply magic");
    assertEquals(error, o.readInt(), "errno");
    assertEquals(cookie, o.readLong(), "cookie");
    return o;
  }

  /** Reads a structured chunk's header (flags DONE); returns its payload. */
  ByteBuf chunk(long cookie, int type) {
    ByteBuf o = out();
    assertEquals(Nbd.STRUCTURED_REPLY_MAGIC, o.readInt(), "structured reply magic");
    assertEquals(Nbd.REPLY_FLAG_DONE, o.readUnsignedShort(), "flags");
    assertEquals(type, o.readUnsignedShort(), "chunk type");
    assertEquals(cookie, o.readLong(), "cookie");
    return o.readSlice(o.readInt());
  }

  /** Reads an NBD_REPLY_TYPE_ERROR chunk carrying {@code error}. */
  void errorChunk(long cookie, int error) {
    ByteBuf payload = chunk(cookie, Nbd.REPLY_TYPE_ERROR);
    assertEquals(error, payload.readInt(), "errno");
    payload.skipBytes(payload.readUnsignedShort());
  }
}
