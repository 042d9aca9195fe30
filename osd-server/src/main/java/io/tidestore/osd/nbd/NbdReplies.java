package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tidestore.store.api.Allocation;

/**
 * Transmission replies (NBD doc/proto.md, "Simple reply message" and "Structured reply chunk
 * message"): their headers, written into buffers the caller sends, and the whole chunks of error
 * and block-status replies. Every structured reply we send is a single chunk with
 * NBD_REPLY_FLAG_DONE.
 */
final class NbdReplies {
  private NbdReplies() {}

  /** Bytes before a READ's data in an NBD_REPLY_TYPE_OFFSET_DATA chunk: header and offset. */
  static final int OFFSET_DATA_HEADER = Nbd.STRUCTURED_REPLY_HEADER + 8;

  static ByteBuf simple(ByteBuf into, int error, long cookie) {
    return into.writeInt(Nbd.SIMPLE_REPLY_MAGIC).writeInt(error).writeLong(cookie);
  }

  static ByteBuf structured(ByteBuf into, int type, long cookie, int length) {
    into.writeInt(Nbd.STRUCTURED_REPLY_MAGIC).writeShort(Nbd.REPLY_FLAG_DONE).writeShort(type);
    return into.writeLong(cookie).writeInt(length);
  }

  /** The header of a READ's one OFFSET_DATA chunk; the data follows. */
  static ByteBuf offsetData(ByteBuf into, long cookie, long offset, int length) {
    return structured(into, Nbd.REPLY_TYPE_OFFSET_DATA, cookie, 8 + length).writeLong(offset);
  }

  /** A simple reply, or for {@code structured} an NBD_REPLY_TYPE_ERROR chunk without message. */
  static ByteBuf error(ByteBufAllocator alloc, boolean structured, long cookie, int error) {
    if (!structured) {
      return simple(alloc.directBuffer(Nbd.SIMPLE_REPLY_HEADER), error, cookie);
    }
    ByteBuf chunk = alloc.directBuffer(Nbd.STRUCTURED_REPLY_HEADER + 6);
    return structured(chunk, Nbd.REPLY_TYPE_ERROR, cookie, 6).writeInt(error).writeShort(0);
  }

  /** An NBD_REPLY_TYPE_NONE chunk: success, nothing to say (a READ of 0 bytes). */
  static ByteBuf none(ByteBufAllocator alloc, long cookie) {
    return structured(
        alloc.directBuffer(Nbd.STRUCTURED_REPLY_HEADER), Nbd.REPLY_TYPE_NONE, cookie, 0);
  }

  /**
   * The NBD_REPLY_TYPE_BLOCK_STATUS chunk for {@code [offset, offset + length)} of base:allocation:
   * a descriptor per run of data (state 0) and per run of holes (NBD_STATE_HOLE | NBD_STATE_ZERO),
   * covering the range; only the first for {@code one} (NBD_CMD_FLAG_REQ_ONE).
   */
  static ByteBuf blockStatus(
      ByteBufAllocator alloc,
      long cookie,
      long offset,
      long length,
      Allocation allocation,
      boolean one) {
    int most = one ? 1 : 2 * allocation.count() + 1;
    ByteBuf chunk = alloc.buffer(Nbd.STRUCTURED_REPLY_HEADER + 4 + 8 * most);
    structured(chunk, Nbd.REPLY_TYPE_BLOCK_STATUS, cookie, 0).writeInt(Nbd.BASE_ALLOCATION_ID);
    long end = offset + length;
    long at = offset;
    for (int i = 0; i < allocation.count() && at < end; i++) {
      long start = Math.max(at, allocation.start(i));
      long stop = Math.min(end, allocation.end(i));
      if (stop <= start) {
        continue;
      }
      if (start > at) {
        descriptor(chunk, start - at, Nbd.STATE_HOLE | Nbd.STATE_ZERO);
        if (one) {
          return finish(chunk);
        }
      }
      descriptor(chunk, stop - start, 0);
      at = stop;
      if (one) {
        return finish(chunk);
      }
    }
    if (at < end) {
      descriptor(chunk, end - at, Nbd.STATE_HOLE | Nbd.STATE_ZERO);
    }
    return finish(chunk);
  }

  private static void descriptor(ByteBuf chunk, long length, int state) {
    chunk.writeInt((int) length).writeInt(state);
  }

  /** Patches the chunk's length field now that its descriptors are written. */
  private static ByteBuf finish(ByteBuf chunk) {
    return chunk.setInt(16, chunk.readableBytes() - Nbd.STRUCTURED_REPLY_HEADER);
  }
}
