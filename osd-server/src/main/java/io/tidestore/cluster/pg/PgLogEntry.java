package io.tidestore.cluster.pg;

import io.tidestore.store.api.ObjectKey;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One operation in a PG's log, as Ceph's {@code pg_log_entry_t}: what happened to which object, at
 * which version, what version the object had before (so that a replica can tell whether it holds
 * the state the entry builds on), and the client request it came from (so that a resent request is
 * recognised and answered rather than applied twice).
 *
 * <p>Encoding, big-endian: {@code u8 format=1, u8 op (1 modify, 2 delete), eversion version,
 * eversion prior, u64 client, u64 tid, u16 name length, name (UTF-8)}; an eversion is {@code u32
 * epoch, u64 version}. It is stored as an attribute value inside a store record, which carries the
 * crc; decoding refuses anything that is not exactly one well-formed entry.
 *
 * @param op what the operation did to the object
 * @param object the object's name
 * @param version the PG version this operation created
 * @param prior the object's version before it ({@link Eversion#ZERO}: it did not exist)
 * @param client the requesting client's id
 * @param tid the client's id of the request
 */
public record PgLogEntry(
    Op op, String object, Eversion version, Eversion prior, long client, long tid) {
  /** What an operation did to its object. */
  public enum Op {
    /** Wrote data or attributes: the object exists at {@code version} afterwards. */
    MODIFY(1),
    /** Removed it. */
    DELETE(2);

    final int code;

    Op(int code) {
      this.code = code;
    }
  }

  private static final int FORMAT = 1;

  public PgLogEntry {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(prior, "prior");
    if (!prior.equals(Eversion.ZERO) && !version.after(prior)) {
      throw new IllegalArgumentException(
          "entry " + version + " of " + object + " is not after its prior version " + prior);
    }
    new ObjectKey(0, object); // the store's name rules: non-empty, at most 1024 bytes of UTF-8
  }

  public byte[] encode() {
    byte[] name = object.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(2 + 2 * Eversion.BYTES + 16 + 2 + name.length);
    b.put((byte) FORMAT).put((byte) op.code);
    version.writeTo(b);
    prior.writeTo(b);
    b.putLong(client).putLong(tid).putShort((short) name.length).put(name);
    return b.array();
  }

  /**
   * Decodes one entry.
   *
   * @throws IllegalArgumentException saying what is wrong, for anything but one well-formed entry
   */
  public static PgLogEntry decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      int format = Byte.toUnsignedInt(b.get());
      if (format != FORMAT) {
        throw new IllegalArgumentException("PG log entry of format " + format + ", not " + FORMAT);
      }
      int code = Byte.toUnsignedInt(b.get());
      Op op =
          switch (code) {
            case 1 -> Op.MODIFY;
            case 2 -> Op.DELETE;
            default -> throw new IllegalArgumentException("PG log entry with op " + code);
          };
      Eversion version = Eversion.readFrom(b);
      Eversion prior = Eversion.readFrom(b);
      long client = b.getLong();
      long tid = b.getLong();
      int length = Short.toUnsignedInt(b.getShort());
      if (length != b.remaining()) {
        throw new IllegalArgumentException(
            "PG log entry names " + length + " bytes but holds " + b.remaining());
      }
      String name =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(b)
              .toString();
      return new PgLogEntry(op, name, version, prior, client, tid);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("PG log entry truncated at " + bytes.length + " bytes", e);
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("PG log entry's object name is not UTF-8", e);
    }
  }
}
