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
 *
 * <p>A payload of {@link #ASSEMBLE_MIN_BYTES} to {@link #ASSEMBLE_MAX_BYTES} that is not all there
 * yet is assembled in a buffer of its own: what has arrived is copied into it and consumed, and
 * later reads are copied straight in. Left to the cumulation, a 64 KiB write that straddles the
 * socket's 64 KiB reads kept the cumulation buffer growing, and each growth copied everything it
 * held again (about twice the payload's bytes, ~10% of a reactor's time at 64 KiB writes); now each
 * byte is copied once, and the cumulation is mostly empty so the next read is taken as is. Larger
 * payloads still accumulate as they arrive, so a header alone never makes the server allocate more
 * than this.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close failures need no handling
final class NbdRequestDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = Logger.getLogger(NbdRequestDecoder.class.getName());

  /** Smallest payload assembled in a buffer of its own. */
  static final int ASSEMBLE_MIN_BYTES = 32 << 10;

  /** Largest payload assembled in a buffer of its own (allocated when its header arrives). */
  static final int ASSEMBLE_MAX_BYTES = 1 << 20;

  private long discarding;

  /** The payload being assembled, and its request's header fields; null when none. */
  private ByteBuf assembling;

  private int assemblingFlags;
  private long assemblingCookie;
  private long assemblingOffset;

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      if (assembling != null) {
        int take = Math.min(assembling.writableBytes(), in.readableBytes());
        assembling.writeBytes(in, take);
        if (assembling.isWritable()) {
          return;
        }
        ByteBuf payload = assembling;
        assembling = null;
        out.add(
            new NbdRequest(
                assemblingFlags,
                Nbd.CMD_WRITE,
                assemblingCookie,
                assemblingOffset,
                payload.readableBytes(),
                payload,
                false));
        continue;
      }
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
        if (length < ASSEMBLE_MIN_BYTES || length > ASSEMBLE_MAX_BYTES) {
          return;
        }
        in.skipBytes(Nbd.REQUEST_HEADER);
        assembling = ctx.alloc().directBuffer((int) length, (int) length);
        assemblingFlags = flags;
        assemblingCookie = cookie;
        assemblingOffset = offset;
        continue;
      }
      in.skipBytes(Nbd.REQUEST_HEADER);
      ByteBuf payload = in.readRetainedSlice((int) length);
      out.add(new NbdRequest(flags, type, cookie, offset, length, payload, false));
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (assembling != null) {
      assembling.release();
      assembling = null;
    }
  }
}
