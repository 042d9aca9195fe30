package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.store.testing.AllocationBound;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The contract the fuzz targets of protocol v2 bodies check (V2RecoveryFuzzTest, V2ScrubFuzzTest):
 * a body reader either refuses with {@link OpException} (the handler replies with its status; the
 * client fails the request) or returns a value whose encoding is exactly the bytes it consumed.
 */
final class BodyFuzzing {
  private BodyFuzzing() {}

  /** Heap a body's reader may take per input byte, on top of {@link #FIXED_BYTES}. */
  static final long PER_INPUT_BYTE = 256;

  /**
   * What any reading may take: a list sized by the bytes left, a string decoder. {@link
   * #PER_INPUT_BYTE} is ProtocolFrameFuzzTest's: each string, even an empty one (2 bytes), costs a
   * strict UTF-8 decoder, its buffer and the String, some 300 bytes (a campaign's finding).
   */
  static final long FIXED_BYTES = 64 << 10;

  /**
   * Runs {@code exercise} on a non-empty {@code input} within the v2 targets' allocation bound
   * ({@link AllocationBound}); {@code what} names the target in a failure.
   */
  static void bounded(String what, byte[] input, Consumer<byte[]> exercise) {
    if (input.length == 0) {
      return;
    }
    AllocationBound.check(
        what, input.length, FIXED_BYTES, PER_INPUT_BYTE, () -> exercise.accept(input));
  }

  /**
   * A copy of {@code input} (a selector byte, then a v2 request) with the prefix's client and tid
   * zeroed: requests that carry none (recovery, PG_QUERY) are read without them.
   */
  static byte[] zeroClientAndTid(byte[] input) {
    byte[] zeroed = input.clone();
    Arrays.fill(
        zeroed, Math.min(9, zeroed.length), Math.min(1 + V2.PREFIX, zeroed.length), (byte) 0);
    return zeroed;
  }

  /** One reader of a body, and the writer of what it reads. */
  record Codec<T>(Function<ByteBuf, T> reader, WriterOf<T> writer) {}

  /** Writes a value as its reader reads it. */
  interface WriterOf<T> {
    void write(ByteBuf out, T value);
  }

  /**
   * Reads {@code body} (input bytes from {@code from}) with {@code codec}: an OpException, or a
   * value whose encoding is the bytes read; {@code whole} says the reader must take every byte (it
   * checks the body's end itself). {@code check} sees the value first; {@code release} frees it.
   */
  static <T> void roundTrip(
      byte[] input,
      int from,
      Codec<T> codec,
      boolean whole,
      Consumer<T> check,
      Consumer<T> release) {
    ByteBuf body = Unpooled.wrappedBuffer(input, from, input.length - from);
    T value;
    try {
      value = codec.reader().apply(body);
    } catch (OpException e) {
      assertTrue(e.status() != Status.OK, "a refusal with status OK: " + e.getMessage());
      return;
    }
    try {
      assertTrue(!whole || !body.isReadable(), "left " + body.readableBytes() + " bytes unread");
      check.accept(value);
      ByteBuf encoded = Unpooled.buffer();
      codec.writer().write(encoded, value);
      assertArrayEquals(
          ByteBufUtil.getBytes(body, 0, body.readerIndex()),
          ByteBufUtil.getBytes(encoded),
          "re-encoded " + value);
    } finally {
      release.accept(value);
    }
  }

  /** {@code body} after the one byte {@code first}: a seed for a target whose first byte picks. */
  static byte[] seed(int first, Consumer<ByteBuf> body) {
    ByteBuf out = Unpooled.buffer();
    out.writeByte(first);
    body.accept(out);
    return ByteBufUtil.getBytes(out);
  }
}
