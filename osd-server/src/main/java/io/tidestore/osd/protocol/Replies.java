package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Builds reply frames into pooled buffers. Stateless. */
final class Replies {
  private Replies() {}

  /** An error reply: the status and a UTF-8 message (u16 length + bytes), cut to 1 KiB. */
  public static ByteBuf error(ByteBufAllocator alloc, int op, long id, int status, String message) {
    String text = message == null ? "" : message;
    if (text.length() > 1024) {
      text = text.substring(0, 1024);
    }
    ByteBuf frame = Wire.begin(alloc, op, 0, status, id, 2 + text.length() * 3);
    Wire.writeString(frame, text);
    return Wire.finish(frame, 0);
  }

  /** A success reply with an empty body. */
  public static ByteBuf ok(ByteBufAllocator alloc, int op, long id) {
    return Wire.finish(Wire.begin(alloc, op, 0, Status.OK, id, 0), 0);
  }

  /** Starts a success reply whose body the caller writes, then {@link Wire#finish}es. */
  public static ByteBuf begin(ByteBufAllocator alloc, int op, long id, int bodyHint) {
    return Wire.begin(alloc, op, 0, Status.OK, id, bodyHint);
  }
}
