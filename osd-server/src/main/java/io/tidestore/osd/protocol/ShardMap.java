package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.tidestore.osd.ops.ObjectNames;

/**
 * Which reactor owns each store shard, and the port that lands a connection on each reactor.
 * Immutable.
 *
 * <pre>
 *  SHARD_MAP reply body:
 *  0          1       2              4                 8
 *  +----------+-------+--------------+-----------------+--------------------+------------------+
 *  |placement |  0    | reactors u16 | shards u32      | port u16 x reactors| owner u16 x shards|
 *  +----------+-------+--------------+-----------------+--------------------+------------------+
 * </pre>
 *
 * @param placement {@link FrameDescriptor#PLACEMENT_CRC32C}
 * @param reactorPorts element r: the TCP port whose connections reactor r serves
 * @param shardOwners element s: the reactor that owns shard s; empty when the OSD has no store
 */
@SuppressWarnings("ArrayRecordComponent") // copied in and compared by content below
public record ShardMap(int placement, int[] reactorPorts, int[] shardOwners) {
  public ShardMap {
    reactorPorts = reactorPorts.clone();
    shardOwners = shardOwners.clone();
    for (int owner : shardOwners) {
      if (owner < 0 || owner >= reactorPorts.length) {
        throw new IllegalArgumentException("shard owner " + owner + " is not a reactor");
      }
    }
  }

  public int reactors() {
    return reactorPorts.length;
  }

  public int shards() {
    return shardOwners.length;
  }

  public int reactorPort(int reactor) {
    return reactorPorts[reactor];
  }

  public int ownerOf(int shard) {
    return shardOwners[shard];
  }

  /** The reactor owning {@code name}'s shard, or -1 when there are no shards or no valid name. */
  public int reactorFor(String name) {
    if (shardOwners.length == 0) {
      return -1;
    }
    int shard = ObjectNames.shardOf(name, shardOwners.length);
    return shard < 0 ? -1 : shardOwners[shard];
  }

  /** Appends the wire form. */
  public void writeTo(ByteBuf out) {
    out.writeByte(placement);
    out.writeByte(0);
    out.writeShort(reactorPorts.length);
    out.writeInt(shardOwners.length);
    for (int port : reactorPorts) {
      out.writeShort(port);
    }
    for (int owner : shardOwners) {
      out.writeShort(owner);
    }
  }

  /** Parses the wire form, throwing {@link OpException} EBADMSG when malformed. */
  public static ShardMap readFrom(ByteBuf in) {
    Wire.need(in, 8, "shard map header");
    int placement = in.readUnsignedByte();
    in.skipBytes(1);
    int reactors = in.readUnsignedShort();
    long shards = in.readUnsignedInt();
    if (placement != FrameDescriptor.PLACEMENT_CRC32C) {
      throw new OpException(Status.EBADMSG, "unknown placement " + placement);
    }
    Wire.need(in, (int) Math.min(Integer.MAX_VALUE, 2L * reactors + 2L * shards), "shard map");
    int[] ports = new int[reactors];
    for (int i = 0; i < reactors; i++) {
      ports[i] = in.readUnsignedShort();
    }
    int[] owners = new int[(int) shards];
    for (int i = 0; i < owners.length; i++) {
      owners[i] = in.readUnsignedShort();
    }
    try {
      return new ShardMap(placement, ports, owners);
    } catch (IllegalArgumentException e) {
      throw new OpException(Status.EBADMSG, e.getMessage());
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardMap other
        && placement == other.placement
        && java.util.Arrays.equals(reactorPorts, other.reactorPorts)
        && java.util.Arrays.equals(shardOwners, other.shardOwners);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Arrays.hashCode(reactorPorts) + java.util.Arrays.hashCode(shardOwners);
  }

  @Override
  public String toString() {
    return "ShardMap[reactorPorts="
        + java.util.Arrays.toString(reactorPorts)
        + ", shardOwners="
        + java.util.Arrays.toString(shardOwners)
        + "]";
  }
}
