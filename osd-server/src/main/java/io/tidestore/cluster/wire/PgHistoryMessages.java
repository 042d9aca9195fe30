package io.tidestore.cluster.wire;

import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.placement.PgId;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The payloads of PG_HISTORY (a list of PG ids; the reply, each one's newest activation or none)
 * and of PG_ACTIVATED's reply (the PGs whose activation was refused). PG_ACTIVATED itself carries
 * the batch as the Raft log stores it ({@link PgActivations#encodeCommand}).
 */
public final class PgHistoryMessages {
  /** The most PGs one request names (an OSD batches what its PGs ask at one moment). */
  public static final int MAX_PGS = 1 << 16;

  private PgHistoryMessages() {}

  /** {@code count u32, count x (pool u32, seed u32)}. */
  public static byte[] pgIds(List<PgId> pgs) {
    if (pgs.size() > MAX_PGS) {
      throw new IllegalArgumentException(pgs.size() + " PGs in one request");
    }
    return MonMessages.write(
        out -> {
          out.writeInt(pgs.size());
          for (PgId pg : pgs) {
            out.writeInt(pg.pool());
            out.writeInt(pg.seed());
          }
        });
  }

  public static List<PgId> pgIds(byte[] payload) throws IOException {
    DataInputStream in = MonMessages.reader(payload);
    int n = count(in);
    List<PgId> pgs = new ArrayList<>(Math.min(n, in.available() / 8)); // sized by what came
    for (int i = 0; i < n; i++) {
      pgs.add(PgActivations.pgId(in.readInt(), in.readInt()));
    }
    end(in);
    return pgs;
  }

  /** {@code count u32}, then per PG {@code present u8} and, if 1, the activation. */
  public static byte[] activations(List<PgActivation> activations) {
    return MonMessages.write(
        out -> {
          out.writeInt(activations.size());
          for (PgActivation a : activations) {
            out.writeByte(a == null ? 0 : 1);
            if (a != null) {
              a.writeTo(out);
            }
          }
        });
  }

  /** The activations, null where none is recorded. */
  public static List<PgActivation> activations(byte[] payload) throws IOException {
    DataInputStream in = MonMessages.reader(payload);
    int n = count(in);
    List<PgActivation> all = new ArrayList<>(Math.min(n, in.available()));
    for (int i = 0; i < n; i++) {
      int present = in.readUnsignedByte();
      if (present > 1) {
        throw new MapFormatException("presence byte " + present);
      }
      all.add(present == 1 ? PgActivation.readFrom(in) : null);
    }
    end(in);
    return all;
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_PGS) {
      throw new MapFormatException("PG count " + n + " is out of range");
    }
    return n;
  }

  private static void end(DataInputStream in) throws IOException {
    if (in.available() != 0) {
      throw new MapFormatException(in.available() + " bytes too many");
    }
  }
}
