package io.tidestore.cluster.map;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.TreeMap;

/**
 * The map's binary encoding, the same in a monitor's snapshot and on the wire (docs/cluster.md "Map
 * encoding"): magic {@code TSMP}, a 16-bit version, the fields, the OSDs, the pools, and a CRC32C
 * of all of it.
 */
public final class MapCodec {
  /** "TSMP": a Tidestore map. */
  static final int MAGIC = 0x54534d50;

  /**
   * The encoding this build writes; it reads this one only (a newer map is refused, not guessed).
   */
  public static final int VERSION = 1;

  private static final int MAX_OSDS = 1 << 20;
  private static final int MAX_POOLS = 1 << 16;
  private static final int FLAG_UP = 1;
  private static final int FLAG_IN = 2;

  private MapCodec() {}

  public static byte[] encode(ClusterMap map) {
    try {
      Codec.Writer w = new Codec.Writer();
      var out = w.out;
      out.writeInt(MAGIC);
      out.writeShort(VERSION);
      out.writeLong(map.epoch());
      w.uuid(map.fsid());
      out.writeLong(map.createdMillis());
      out.writeByte(map.defaultFailureDomain().ordinal());
      out.writeInt(map.nextOsdId());
      out.writeInt(map.nextPoolId());
      out.writeInt(map.osds().size());
      for (OsdInfo osd : map.osds().values()) {
        out.writeInt(osd.id());
        w.uuid(osd.uuid());
        w.string(osd.host());
        out.writeDouble(osd.weight());
        w.string(osd.address());
        w.string(osd.adminAddress());
        out.writeByte((osd.up() ? FLAG_UP : 0) | (osd.in() ? FLAG_IN : 0));
        out.writeLong(osd.upFrom());
        out.writeLong(osd.stateSinceMillis());
      }
      out.writeInt(map.pools().size());
      for (PoolInfo pool : map.pools().values()) {
        out.writeInt(pool.id());
        w.string(pool.name());
        out.writeByte(pool.size());
        out.writeByte(pool.minSize());
        out.writeInt(pool.pgNum());
        out.writeByte(pool.failureDomain().ordinal());
        out.writeLong(pool.createdEpoch());
      }
      return w.sealed();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }

  public static ClusterMap decode(byte[] bytes) throws MapFormatException {
    try {
      Codec.Reader r = new Codec.Reader(bytes, "cluster map");
      var in = r.in;
      if (in.readInt() != MAGIC) {
        throw new MapFormatException("not a cluster map (bad magic)");
      }
      int version = in.readUnsignedShort();
      if (version != VERSION) {
        throw new MapFormatException(
            "cluster map encoding version " + version + " (this build reads " + VERSION + ")");
      }
      long epoch = in.readLong();
      var fsid = r.uuid();
      long created = in.readLong();
      FailureDomain defaultDomain = Codec.domain(in.readUnsignedByte());
      int nextOsdId = in.readInt();
      int nextPoolId = in.readInt();
      TreeMap<Integer, OsdInfo> osds = new TreeMap<>();
      for (int i = r.count(MAX_OSDS, "OSD"); i > 0; i--) {
        int id = in.readInt();
        var uuid = r.uuid();
        String host = r.string();
        double weight = in.readDouble();
        String address = r.string();
        String admin = r.string();
        int flags = in.readUnsignedByte();
        // The encoding is canonical: ids ascending once each, known flags, a weight that is a
        // number. Anything else is damage, or a map read as something it is not.
        if (!osds.isEmpty() && id <= osds.lastKey()) {
          throw new MapFormatException("OSD " + id + " is out of order or repeated");
        }
        if ((flags & ~(FLAG_UP | FLAG_IN)) != 0 || Double.isNaN(weight)) {
          throw new MapFormatException("OSD " + id + " has unknown flags or a weight of NaN");
        }
        long upFrom = in.readLong();
        long since = in.readLong();
        osds.put(
            id,
            new OsdInfo(
                id,
                uuid,
                host,
                weight,
                address,
                admin,
                (flags & FLAG_UP) != 0,
                (flags & FLAG_IN) != 0,
                upFrom,
                since));
      }
      TreeMap<Integer, PoolInfo> pools = new TreeMap<>();
      for (int i = r.count(MAX_POOLS, "pool"); i > 0; i--) {
        int id = in.readInt();
        String name = r.string();
        int size = in.readUnsignedByte();
        int minSize = in.readUnsignedByte();
        int pgNum = in.readInt();
        FailureDomain domain = Codec.domain(in.readUnsignedByte());
        long createdEpoch = in.readLong();
        if (!pools.isEmpty() && id <= pools.lastKey()) {
          throw new MapFormatException("pool " + id + " is out of order or repeated");
        }
        pools.put(id, new PoolInfo(id, name, size, minSize, pgNum, domain, createdEpoch));
      }
      r.expectEnd("cluster map");
      return new ClusterMap(
          fsid, epoch, created, defaultDomain, nextOsdId, nextPoolId, osds, pools);
    } catch (EOFException e) {
      throw new MapFormatException("cluster map is truncated");
    } catch (MapFormatException e) {
      throw e;
    } catch (IOException e) {
      throw new MapFormatException("cluster map is unreadable: " + e.getMessage());
    }
  }
}
