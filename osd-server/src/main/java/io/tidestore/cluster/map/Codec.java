package io.tidestore.cluster.map;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The primitives both codecs share: big-endian integers, UTF-8 strings with a 16-bit length, UUIDs
 * as two longs, and a trailing CRC32C over everything before it, so that a damaged map or command
 * is refused instead of applied.
 */
public final class Codec {
  private Codec() {}

  /** Writes into a byte array and seals it with the CRC32C. */
  public static final class Writer {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    public final DataOutputStream out = new DataOutputStream(bytes);

    void string(String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      if (utf8.length > 0xffff) {
        throw new IllegalArgumentException("string of " + utf8.length + " bytes is too long");
      }
      try {
        out.writeShort(utf8.length);
        out.write(utf8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void uuid(UUID uuid) throws IOException {
      out.writeLong(uuid.getMostSignificantBits());
      out.writeLong(uuid.getLeastSignificantBits());
    }

    public byte[] sealed() throws IOException {
      out.flush();
      byte[] body = bytes.toByteArray();
      CRC32C crc = new CRC32C();
      crc.update(body);
      byte[] sealed = Arrays.copyOf(body, body.length + 4);
      int value = (int) crc.getValue();
      sealed[body.length] = (byte) (value >>> 24);
      sealed[body.length + 1] = (byte) (value >>> 16);
      sealed[body.length + 2] = (byte) (value >>> 8);
      sealed[body.length + 3] = (byte) value;
      return sealed;
    }
  }

  /** Checks the CRC32C, then reads the body. */
  public static final class Reader {
    public final DataInputStream in;

    public Reader(byte[] sealed, String what) throws MapFormatException {
      if (sealed.length < 4) {
        throw new MapFormatException(what + " of " + sealed.length + " bytes is truncated");
      }
      int bodyLength = sealed.length - 4;
      CRC32C crc = new CRC32C();
      crc.update(sealed, 0, bodyLength);
      int stored =
          ((sealed[bodyLength] & 0xff) << 24)
              | ((sealed[bodyLength + 1] & 0xff) << 16)
              | ((sealed[bodyLength + 2] & 0xff) << 8)
              | (sealed[bodyLength + 3] & 0xff);
      if (stored != (int) crc.getValue()) {
        throw new MapFormatException(what + " fails its CRC32C: damaged, not applied");
      }
      in = new DataInputStream(new ByteArrayInputStream(sealed, 0, bodyLength));
    }

    String string() throws IOException {
      int length = in.readUnsignedShort();
      byte[] utf8 = new byte[length];
      in.readFully(utf8);
      try {
        // Strict: a lenient decode would turn bad bytes into U+FFFD, a name nobody sent.
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(utf8))
            .toString();
      } catch (CharacterCodingException e) {
        throw new MapFormatException("a string of " + length + " bytes is not UTF-8");
      }
    }

    UUID uuid() throws IOException {
      return new UUID(in.readLong(), in.readLong());
    }

    public int count(int max, String what) throws IOException {
      int n = in.readInt();
      if (n < 0 || n > max) {
        throw new MapFormatException(what + " count " + n + " is out of range");
      }
      return n;
    }

    public void expectEnd(String what) throws IOException {
      if (in.available() != 0) {
        throw new MapFormatException(what + " has " + in.available() + " bytes too many");
      }
    }
  }

  static FailureDomain domain(int code) throws MapFormatException {
    FailureDomain[] all = FailureDomain.values();
    if (code < 0 || code >= all.length) {
      throw new MapFormatException("failure domain code " + code + " is unknown");
    }
    return all[code];
  }
}
