package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.tidestore.osd.image.BlockImage;
import java.nio.charset.StandardCharsets;

/**
 * Option replies of the handshake (NBD doc/proto.md, "Option reply"): magic, the option, the reply
 * type, the data's length, the data; each written and flushed at once (the client waits for it).
 */
final class NbdOptionReplies {
  private NbdOptionReplies() {}

  /** A reply whose data is {@code message} in UTF-8 (an error's human-readable text), or none. */
  static ChannelFuture text(ChannelHandlerContext ctx, int option, int type, String message) {
    ByteBuf data = null;
    if (message != null) {
      data = ctx.alloc().buffer(message.length());
      data.writeCharSequence(message, StandardCharsets.UTF_8);
    }
    return reply(ctx, option, type, data);
  }

  /** A reply carrying {@code data} (released once written), or none when null. */
  static ChannelFuture reply(ChannelHandlerContext ctx, int option, int type, ByteBuf data) {
    int length = data == null ? 0 : data.readableBytes();
    ByteBuf header = ctx.alloc().buffer(20);
    header.writeLong(Nbd.OPTION_REPLY_MAGIC).writeInt(option).writeInt(type).writeInt(length);
    if (data == null) {
      return ctx.writeAndFlush(header);
    }
    ctx.write(header);
    return ctx.writeAndFlush(data);
  }

  /**
   * The replies to INFO or GO for {@code image}: NBD_INFO_EXPORT (size and {@code flags}),
   * NBD_INFO_NAME when asked, NBD_INFO_BLOCK_SIZE always, then the ACK.
   */
  static void info(
      ChannelHandlerContext ctx, int option, BlockImage image, int flags, boolean wantName) {
    ByteBuf export = ctx.alloc().buffer(12);
    export.writeShort(Nbd.INFO_EXPORT).writeLong(image.size()).writeShort(flags);
    reply(ctx, option, Nbd.REP_INFO, export);
    if (wantName) {
      byte[] bytes = image.name().getBytes(StandardCharsets.UTF_8);
      ByteBuf info = ctx.alloc().buffer(2 + bytes.length);
      info.writeShort(Nbd.INFO_NAME).writeBytes(bytes);
      reply(ctx, option, Nbd.REP_INFO, info);
    }
    ByteBuf sizes = ctx.alloc().buffer(14);
    sizes.writeShort(Nbd.INFO_BLOCK_SIZE);
    sizes.writeInt(Nbd.MIN_BLOCK).writeInt(Nbd.PREFERRED_BLOCK).writeInt(Nbd.MAX_PAYLOAD);
    reply(ctx, option, Nbd.REP_INFO, sizes);
    reply(ctx, option, Nbd.REP_ACK, null);
  }

  /** NBD_REP_META_CONTEXT: the context's id and name. */
  static ChannelFuture metaContext(ChannelHandlerContext ctx, int option, int id, String name) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    ByteBuf data = ctx.alloc().buffer(4 + bytes.length);
    data.writeInt(id).writeBytes(bytes);
    return reply(ctx, option, Nbd.REP_META_CONTEXT, data);
  }
}
