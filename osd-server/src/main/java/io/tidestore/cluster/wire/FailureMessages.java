package io.tidestore.cluster.wire;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * The payload of OSD_FAILURE ({@link MonFrame#OSD_FAILURE}), Ceph's MOSDFailure: {@code u32
 * reporter, u64 reporter_up_from, u32 target, u64 target_up_from, u64 failed_for_ms, u8 kind} (1
 * failed, 2 alive again). The reader refuses an id or incarnation out of range, another kind, and
 * trailing bytes ({@link WireException}, BAD_REQUEST).
 */
public final class FailureMessages {
  /** The report says the target has not answered for {@code failedForMillis}. */
  public static final int FAILED = 1;

  /** The report takes back the reporter's earlier one: the target answers again. */
  public static final int ALIVE = 2;

  /** Bytes of the payload. */
  static final int BYTES = 4 + 8 + 4 + 8 + 8 + 1;

  private FailureMessages() {}

  /**
   * One OSD's report about one heartbeat peer.
   *
   * @param reporter the reporting OSD
   * @param reporterUpFrom its incarnation: a report of an OSD that has since restarted or is down
   *     does not count
   * @param target the silent peer
   * @param targetUpFrom the incarnation of it that went silent (a report about an earlier one does
   *     not count)
   * @param failedForMillis how long it has not answered (0 in an alive report)
   * @param alive true: the target answers again, which cancels the reporter's report
   */
  public record OsdFailure(
      int reporter,
      long reporterUpFrom,
      int target,
      long targetUpFrom,
      long failedForMillis,
      boolean alive) {
    public OsdFailure {
      if (reporter < 0 || target < 0 || reporterUpFrom < 0 || targetUpFrom < 0) {
        throw new IllegalArgumentException("negative id or incarnation");
      }
      if (failedForMillis < 0 || (alive && failedForMillis != 0)) {
        throw new IllegalArgumentException("failed for " + failedForMillis + " ms");
      }
    }

    /** A report that {@code target} answers again. */
    public static OsdFailure alive(int reporter, long reporterUpFrom, int target, long targetUp) {
      return new OsdFailure(reporter, reporterUpFrom, target, targetUp, 0, true);
    }
  }

  public static byte[] encode(OsdFailure f) {
    return MonMessages.write(
        out -> {
          out.writeInt(f.reporter());
          out.writeLong(f.reporterUpFrom());
          out.writeInt(f.target());
          out.writeLong(f.targetUpFrom());
          out.writeLong(f.failedForMillis());
          out.writeByte(f.alive() ? ALIVE : FAILED);
        });
  }

  public static OsdFailure decode(byte[] payload) throws IOException {
    if (payload.length != BYTES) {
      throw new WireException(
          WireException.BAD_REQUEST, "failure report of " + payload.length + " bytes");
    }
    DataInputStream in = MonMessages.reader(payload);
    int reporter = in.readInt();
    long reporterUpFrom = in.readLong();
    int target = in.readInt();
    long targetUpFrom = in.readLong();
    long failedFor = in.readLong();
    int kind = in.readUnsignedByte();
    if (kind != FAILED && kind != ALIVE) {
      throw new WireException(WireException.BAD_REQUEST, "failure report kind " + kind);
    }
    try {
      return new OsdFailure(
          reporter, reporterUpFrom, target, targetUpFrom, failedFor, kind == ALIVE);
    } catch (IllegalArgumentException e) {
      throw new WireException(WireException.BAD_REQUEST, "failure report: " + e.getMessage());
    }
  }
}
