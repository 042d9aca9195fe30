package io.tidestore.cluster.wire;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * One message of the monitor protocol: {@code u32 length} (of the rest), {@code u8 version}, {@code
 * u8 type}, {@code u64 request id} (0 for a push), {@code u64 sender's map epoch}, payload. A reply
 * carries its request's id. Big-endian, as every Tidestore wire format.
 *
 * @param type one of the constants below
 * @param requestId matches a reply to its request; 0 in pushes
 * @param epoch the newest map epoch the sender has (0: none)
 * @param payload the message's body ({@link MonMessages})
 */
public record MonFrame(int type, long requestId, long epoch, byte[] payload) {
  /** The protocol version this build speaks; a frame of another version gets {@link #ERROR}. */
  public static final int VERSION = 1;

  /** An OSD starts: register it, allocate its id, mark it up. Reply: {@link #OK} with the id. */
  public static final int BOOT = 1;

  /** An OSD is alive. Reply: {@link #OK}, whose epoch tells the OSD whether its map is old. */
  public static final int HEARTBEAT = 2;

  /** The current map. Reply: {@link #MAP}. */
  public static final int GET_MAP = 3;

  /** Push every new map on this connection from now on. Reply: {@link #OK}, then pushes. */
  public static final int SUBSCRIBE = 4;

  /** {@code pool create}. Reply: {@link #OK} or {@link #ERROR}. */
  public static final int POOL_CREATE = 5;

  /** {@code pool rm}. Reply: {@link #OK} or {@link #ERROR}. */
  public static final int POOL_REMOVE = 6;

  /** This monitor's view of the quorum. Reply: {@link #OK} with {@link MonMessages.MonStatus}. */
  public static final int MON_STATUS = 7;

  /**
   * The state of every PG as the monitor resolved it from the OSDs' reports. Reply: {@link #OK}
   * with a {@link io.tidestore.cluster.pgstats.PgSummary}.
   */
  public static final int PG_STATS = 8;

  /**
   * Primaries about to activate PGs record their write sets (docs/cluster.md "PG history"); the
   * payload is the map command. Reply: {@link #OK} with the PGs refused ({@link
   * PgHistoryMessages#pgIds}: a later activation is recorded, or the pool is gone).
   */
  public static final int PG_ACTIVATED = 9;

  /**
   * The newest recorded activation of each PG named ({@link PgHistoryMessages#pgIds}), read through
   * the leader (linearizable). Reply: {@link #OK} with {@link PgHistoryMessages#activations}.
   */
  public static final int PG_HISTORY = 10;

  public static final int OK = 0x80;
  public static final int ERROR = 0x81;

  /** A map: the reply to {@link #GET_MAP}, or a push (request id 0) to a subscriber. */
  public static final int MAP = 0x82;

  /** Header bytes after the length: version, type, request id, epoch. */
  static final int HEADER = 1 + 1 + 8 + 8;

  /** A frame larger than this is refused: a map of 1,000 OSDs is about 100 KiB. */
  public static final int MAX_LENGTH = 64 << 20;

  /** Reads one frame; EOF at a frame boundary is {@link EOFException}. */
  public static MonFrame read(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < HEADER || length > MAX_LENGTH) {
      throw new WireException(WireException.BAD_REQUEST, "frame length " + length + " is invalid");
    }
    int version = in.readUnsignedByte();
    int type = in.readUnsignedByte();
    long requestId = in.readLong();
    long epoch = in.readLong();
    // Grows with the bytes that arrive: a 4-byte length claiming 64 MiB must not allocate 64 MiB.
    byte[] payload = in.readNBytes(length - HEADER);
    if (payload.length != length - HEADER) {
      throw new EOFException(
          "frame truncated: " + payload.length + " of " + (length - HEADER) + " payload bytes");
    }
    if (version != VERSION) {
      throw new WireException(
          WireException.VERSION,
          "monitor protocol version " + version + " (this build speaks " + VERSION + ")",
          requestId);
    }
    return new MonFrame(type, requestId, epoch, payload);
  }

  /** Writes and flushes; callers serialize writers of one stream. */
  public void write(DataOutputStream out) throws IOException {
    out.writeInt(HEADER + payload.length);
    out.writeByte(VERSION);
    out.writeByte(type);
    out.writeLong(requestId);
    out.writeLong(epoch);
    out.write(payload);
    out.flush();
  }
}
