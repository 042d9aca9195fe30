package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.logging.Logger;

/**
 * Splits transmission-phase bytes into {@link NbdRequest}s: a 28-byte header (magic u32, flags u16,
 * type u16, cookie u64, offset u64, length u32) and, for NBD_CMD_WRITE, the payload. A payload
 * above {@link Nbd#MAX_PAYLOAD} is skipped as it arrives, never buffered, and the request is passed
 * on marked so it gets EINVAL. A bad magic cannot be resynchronized: log and close. One instance
 * per channel, on its event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close failures need no handling
final class NbdRequestDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = Logger.getLogger(NbdRequestDecoder.class.getName());

  private long discarding;

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      if (discarding > 0) {
        int skip = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(skip);
        discarding -= skip;
        if (discarding > 0) {
          return;
        }
      }
      if (in.readableBytes() < Nbd.REQUEST_HEADER) {
        return;
      }
      int start = in.readerIndex();
      if (in.getInt(start) != Nbd.REQUEST_MAGIC) {
        LOG.warning(ctx.channel().remoteAddress() + ": bad NBD request magic, closing");
        in.skipBytes(in.readableBytes());
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
        out.add(new NbdRequest(flags, type, cookie, offset, length, null, true));
        continue;
      }
      if (in.readableBytes() < Nbd.REQUEST_HEADER + length) {
        return;
      }
      in.skipBytes(Nbd.REQUEST_HEADER);
      ByteBuf payload = in.readRetainedSlice((int) length);
      out.add(new NbdRequest(flags, type, cookie, offset, length, payload, false));
    }
  }
}
