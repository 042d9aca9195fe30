package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Encoding helpers shared by server and client: headers and u16-length-prefixed strings. */
public final class Wire {
  private Wire() {}

  /**
   * Allocates a frame with room for {@code bodyHint} body bytes and writes its header with a
   * placeholder length; finish it with {@link #finish}.
   */
  public static ByteBuf begin(
      ByteBufAllocator alloc, int op, int flags, int status, long requestId, int bodyHint) {
    ByteBuf frame = alloc.ioBuffer(FrameDescriptor.HEADER_LENGTH + bodyHint);
    frame.writeInt(0);
    frame.writeByte(op);
    frame.writeByte(flags);
    frame.writeShort(status);
    frame.writeLong(requestId);
    return frame;
  }

  /**
   * Sets the length field of a frame whose header is in {@code frame} and whose body is the rest of
   * {@code frame} plus {@code trailingBytes} sent after it in a separate buffer.
   */
  public static ByteBuf finish(ByteBuf frame, int trailingBytes) {
    frame.setInt(
        frame.readerIndex() + FrameDescriptor.LENGTH_OFFSET,
        frame.readableBytes() - 4 + trailingBytes);
    return frame;
  }

  /** Writes {@code s} as u16 length + UTF-8 bytes. */
  public static void writeString(ByteBuf out, String s) {
    int lengthAt = out.writerIndex();
    out.writeShort(0);
    int written = out.writeCharSequence(s, StandardCharsets.UTF_8);
    if (written > 0xffff) {
      throw new IllegalArgumentException("string longer than 65535 UTF-8 bytes");
    }
    out.setShort(lengthAt, written);
  }

  /** UTF-8 byte length of {@code s}. */
  public static int utf8Length(String s) {
    return io.netty.buffer.ByteBufUtil.utf8Bytes(s);
  }

  /**
   * Reads a u16-length-prefixed UTF-8 string of at most {@code max} bytes, throwing {@link
   * OpException} (EBADMSG, ENAMETOOLONG) on a short body, an over-long or badly encoded string.
   */
  public static String readString(ByteBuf in, int max, String what) {
    need(in, 2, what + " length");
    int length = in.readUnsignedShort();
    if (length > max) {
      throw new OpException(
          Status.ENAMETOOLONG, what + " is " + length + " bytes, the limit is " + max);
    }
    need(in, length, what);
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(in.nioBuffer(in.readerIndex(), length))
              .toString();
      in.skipBytes(length);
      return s;
    } catch (CharacterCodingException e) {
      throw new OpException(Status.EBADMSG, what + " is not valid UTF-8");
    }
  }

  /** Throws EBADMSG unless {@code in} has {@code n} more bytes. */
  public static void need(ByteBuf in, int n, String what) {
    if (in.readableBytes() < n) {
      throw new OpException(
          Status.EBADMSG,
          "body too short for " + what + " (" + in.readableBytes() + " bytes left)");
    }
  }
}
