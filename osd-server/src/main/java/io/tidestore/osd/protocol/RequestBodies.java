package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;

/** Field readers for request bodies, each check throwing {@link OpException}. Stateless. */
final class RequestBodies {
  private RequestBodies() {}

  static String name(ByteBuf body) {
    String name = Wire.readString(body, FrameDescriptor.MAX_NAME, "object name");
    if (name.isEmpty()) {
      throw new OpException(Status.EINVAL, "empty object name");
    }
    return name;
  }

  static String xattrKey(ByteBuf body) {
    String key = Wire.readString(body, FrameDescriptor.MAX_XATTR_KEY, "xattr key");
    if (key.isEmpty()) {
      throw new OpException(Status.EINVAL, "empty xattr key");
    }
    return key;
  }

  static long offset(ByteBuf body, String what) {
    Wire.need(body, 8, what);
    long value = body.readLong();
    if (value < 0) {
      throw new OpException(Status.EINVAL, what + " " + Long.toUnsignedString(value) + " > 2^63-1");
    }
    return value;
  }

  static int length(ByteBuf body, int max, String what) {
    Wire.need(body, 4, what);
    long value = body.readUnsignedInt();
    if (value > max) {
      throw new OpException(Status.EMSGSIZE, what + " " + value + " exceeds " + max);
    }
    return (int) value;
  }

  /**
   * A flags byte: EBADMSG when a bit outside {@code known} is set (a field read as something it is
   * not, and a sender that writes more than this version knows).
   */
  static int flags(ByteBuf body, int known, String what) {
    Wire.need(body, 1, what);
    int flags = body.readUnsignedByte();
    if ((flags & ~known) != 0) {
      throw new OpException(Status.EBADMSG, what + " 0x" + Integer.toHexString(flags));
    }
    return flags;
  }

  /** A boolean byte: 0 or 1, EBADMSG for anything else. */
  static boolean bool(ByteBuf body, String what) {
    return flags(body, 1, what) != 0;
  }

  static void end(ByteBuf body, int op) {
    if (body.isReadable()) {
      throw new OpException(
          Status.EBADMSG, body.readableBytes() + " unexpected trailing bytes in " + Op.name(op));
    }
  }

  /** The store's block: a punch frees whole ones (ShardStore.BLOCK_SIZE). */
  static final int BLOCK = 4096;

  /** A range of whole blocks, not empty and not past 2^63-1. */
  static void checkBlocks(long offset, long length) {
    if (offset % BLOCK != 0 || length % BLOCK != 0 || length == 0) {
      throw new OpException(
          Status.EINVAL,
          "offset "
              + offset
              + " and length "
              + length
              + " are not whole "
              + BLOCK
              + "-byte blocks");
    }
    checkRange(offset, length);
  }

  static void checkRange(long offset, long length) {
    if (Long.MAX_VALUE - offset < length) {
      throw new OpException(
          Status.EFBIG, "offset " + offset + " + length " + length + " overflows");
    }
  }
}
