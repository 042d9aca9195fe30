package io.tidestore.cluster.map;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link MapCommand}'s binary encoding, as the monitors' Raft log stores it: a 16-bit version, a
 * type byte, the fields, and a CRC32C (docs/cluster.md "Log entries").
 */
public final class CommandCodec {
  public static final int VERSION = 1;

  private static final int INIT = 1;
  private static final int BOOT = 2;
  private static final int MARK_DOWN = 3;
  private static final int MARK_OUT = 4;
  private static final int POOL_CREATE = 5;
  private static final int POOL_REMOVE = 6;
  // Type 7 is a batch of PG activations, kept beside the map (cluster.pghistory.PgActivations).
  private static final int NO_DOMAIN = 0xff;
  private static final int MAX_IDS = 1 << 20;

  private CommandCodec() {}

  public static byte[] encode(MapCommand command) {
    try {
      Codec.Writer w = new Codec.Writer();
      var out = w.out;
      out.writeShort(VERSION);
      switch (command) {
        case MapCommand.Init init -> {
          out.writeByte(INIT);
          w.uuid(init.fsid());
          out.writeLong(init.nowMillis());
          out.writeByte(init.defaultFailureDomain().ordinal());
        }
        case MapCommand.Boot boot -> {
          out.writeByte(BOOT);
          out.writeInt(boot.requestedId());
          w.uuid(boot.uuid());
          w.string(boot.host());
          out.writeDouble(boot.weight());
          w.string(boot.address());
          w.string(boot.adminAddress());
          out.writeLong(boot.nowMillis());
        }
        case MapCommand.MarkDown down -> {
          out.writeByte(MARK_DOWN);
          writeIds(out, down.upFromById());
          out.writeLong(down.nowMillis());
        }
        case MapCommand.MarkOut markOut -> {
          out.writeByte(MARK_OUT);
          writeIds(out, markOut.upFromById());
        }
        case MapCommand.PoolCreate create -> {
          out.writeByte(POOL_CREATE);
          w.string(create.name());
          out.writeInt(create.size());
          out.writeInt(create.minSize());
          out.writeInt(create.pgNum());
          out.writeByte(
              create.failureDomain() == null ? NO_DOMAIN : create.failureDomain().ordinal());
        }
        case MapCommand.PoolRemove remove -> {
          out.writeByte(POOL_REMOVE);
          w.string(remove.name());
        }
      }
      return w.sealed();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }

  private static void writeIds(java.io.DataOutputStream out, SortedMap<Integer, Long> ids)
      throws IOException {
    out.writeInt(ids.size());
    for (var e : ids.entrySet()) {
      out.writeInt(e.getKey());
      out.writeLong(e.getValue());
    }
  }

  private static SortedMap<Integer, Long> readIds(Codec.Reader r) throws IOException {
    TreeMap<Integer, Long> ids = new TreeMap<>();
    for (int i = r.count(MAX_IDS, "OSD id"); i > 0; i--) {
      ids.put(r.in.readInt(), r.in.readLong());
    }
    return ids;
  }

  public static MapCommand decode(byte[] bytes) throws MapFormatException {
    try {
      Codec.Reader r = new Codec.Reader(bytes, "map command");
      var in = r.in;
      int version = in.readUnsignedShort();
      if (version != VERSION) {
        throw new MapFormatException(
            "map command version " + version + " (this build reads " + VERSION + ")");
      }
      int type = in.readUnsignedByte();
      MapCommand command =
          switch (type) {
            case INIT ->
                new MapCommand.Init(r.uuid(), in.readLong(), Codec.domain(in.readUnsignedByte()));
            case BOOT ->
                new MapCommand.Boot(
                    in.readInt(),
                    r.uuid(),
                    r.string(),
                    in.readDouble(),
                    r.string(),
                    r.string(),
                    in.readLong());
            case MARK_DOWN -> new MapCommand.MarkDown(readIds(r), in.readLong());
            case MARK_OUT -> new MapCommand.MarkOut(readIds(r));
            case POOL_CREATE -> {
              String name = r.string();
              int size = in.readInt();
              int minSize = in.readInt();
              int pgNum = in.readInt();
              int domain = in.readUnsignedByte();
              yield new MapCommand.PoolCreate(
                  name, size, minSize, pgNum, domain == NO_DOMAIN ? null : Codec.domain(domain));
            }
            case POOL_REMOVE -> new MapCommand.PoolRemove(r.string());
            default -> throw new MapFormatException("map command type " + type + " is unknown");
          };
      r.expectEnd("map command");
      return command;
    } catch (EOFException e) {
      throw new MapFormatException("map command is truncated");
    } catch (MapFormatException e) {
      throw e;
    } catch (IOException e) {
      throw new MapFormatException("map command is unreadable: " + e.getMessage());
    }
  }
}
