package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.pghistory.PgActivations;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A monitor's snapshot file: magic {@code TSMS}, version 1, the map's length and encoding ({@link
 * MapCodec}), then the PG activations ({@link PgActivations#encode}); each part has its own CRC32C.
 * A snapshot of an earlier build is the map's encoding alone (it starts with the map's magic) and
 * loads with no activations recorded.
 */
record MonSnapshot(ClusterMap map, PgActivations activations) {
  /** "TSMS": a Tidestore monitor snapshot. */
  private static final int MAGIC = 0x54534d53;

  private static final int VERSION = 1;
  private static final int HEADER = 4 + 2 + 4;

  byte[] encode() {
    byte[] m = MapCodec.encode(map);
    byte[] a = activations.encode();
    ByteBuffer b = ByteBuffer.allocate(HEADER + m.length + a.length);
    b.putInt(MAGIC).putShort((short) VERSION).putInt(m.length).put(m).put(a);
    return b.array();
  }

  static MonSnapshot decode(byte[] bytes) throws MapFormatException {
    if (bytes.length < HEADER) {
      return new MonSnapshot(MapCodec.decode(bytes), PgActivations.EMPTY);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != MAGIC) {
      return new MonSnapshot(MapCodec.decode(bytes), PgActivations.EMPTY);
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version != VERSION) {
      throw new MapFormatException(
          "monitor snapshot version " + version + " (this build reads " + VERSION + ")");
    }
    int mapLength = b.getInt();
    if (mapLength < 0 || mapLength > bytes.length - HEADER) {
      throw new MapFormatException("monitor snapshot: map length " + mapLength);
    }
    ClusterMap map = MapCodec.decode(Arrays.copyOfRange(bytes, HEADER, HEADER + mapLength));
    PgActivations activations =
        PgActivations.decode(Arrays.copyOfRange(bytes, HEADER + mapLength, bytes.length));
    return new MonSnapshot(map, activations);
  }
}
