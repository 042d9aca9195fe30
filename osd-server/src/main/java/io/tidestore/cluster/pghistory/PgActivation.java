package io.tidestore.cluster.pghistory;

import io.tidestore.cluster.map.MapFormatException;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The newest activation of one PG the monitors recorded (what Ceph derives from {@code up_thru} and
 * {@code past_intervals}): the members a primary was about to send its ops to, and the map epoch it
 * activated in. Every write acknowledged since is on all of them, so a later peering must hear from
 * at least one of them that still holds that history ({@code last_active >= epoch}), or the PG
 * stays down: otherwise it could serve older data than was acknowledged.
 *
 * @param epoch the map epoch the primary activated the PG in
 * @param members the OSDs of its write set, ascending
 */
public record PgActivation(long epoch, List<Integer> members) {
  /** More members than any pool's size could give. */
  private static final int MAX_MEMBERS = 1 << 10;

  public PgActivation {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch " + epoch + " is negative");
    }
    members = members.stream().sorted().distinct().toList();
    if (members.isEmpty()) {
      throw new IllegalArgumentException("an activation has at least one member");
    }
  }

  /**
   * Whether OSD {@code osd}, whose copy says it last took part in activation {@code lastActive},
   * holds this history.
   */
  public boolean heldBy(int osd, long lastActive) {
    return lastActive >= epoch && members.contains(osd);
  }

  /** {@code epoch u64, count u16, count x osd u32}, ascending. */
  public void writeTo(DataOutput out) throws IOException {
    out.writeLong(epoch);
    out.writeShort(members.size());
    for (int osd : members) {
      out.writeInt(osd);
    }
  }

  /** Reads what {@link #writeTo} wrote; anything else is a {@link MapFormatException}. */
  public static PgActivation readFrom(DataInput in) throws IOException {
    long epoch = in.readLong();
    int count = in.readUnsignedShort();
    if (epoch < 0 || count == 0 || count > MAX_MEMBERS) {
      throw new MapFormatException(
          "pg activation of epoch " + epoch + " with " + count + " members");
    }
    List<Integer> members = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int osd = in.readInt();
      if (osd < 0 || (i > 0 && osd <= members.get(i - 1))) {
        throw new MapFormatException("pg activation members must be ascending ids >= 0");
      }
      members.add(osd);
    }
    return new PgActivation(epoch, members);
  }
}
