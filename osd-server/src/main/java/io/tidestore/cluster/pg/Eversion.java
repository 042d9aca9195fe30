package io.tidestore.cluster.pg;

import java.nio.ByteBuffer;

/**
 * A position in a PG's history, as Ceph's {@code eversion_t}: the map epoch in which the primary
 * ordered the operation, and the PG's version counter, which only grows (a new primary continues
 * from the newest version it found). Ordered by epoch, then version; printed {@code epoch'version}
 * as Ceph prints it.
 *
 * @param epoch the map epoch, unsigned 32 bits
 * @param version the PG's operation counter, >= 0
 */
public record Eversion(long epoch, long version) implements Comparable<Eversion> {
  /** Before every operation: the head of an empty log. */
  public static final Eversion ZERO = new Eversion(0, 0);

  /** Bytes of {@link #writeTo}. */
  public static final int BYTES = 12;

  public Eversion {
    if (epoch < 0 || epoch > 0xffff_ffffL) {
      throw new IllegalArgumentException("epoch " + epoch + " outside [0, 2^32)");
    }
    if (version < 0) {
      throw new IllegalArgumentException("version " + version + " is negative");
    }
  }

  @Override
  public int compareTo(Eversion o) {
    int c = Long.compare(epoch, o.epoch);
    return c != 0 ? c : Long.compare(version, o.version);
  }

  public boolean after(Eversion o) {
    return compareTo(o) > 0;
  }

  /** Big-endian: u32 epoch, u64 version. */
  public void writeTo(ByteBuffer b) {
    b.putInt((int) epoch).putLong(version);
  }

  public static Eversion readFrom(ByteBuffer b) {
    return new Eversion(Integer.toUnsignedLong(b.getInt()), b.getLong());
  }

  /**
   * Fixed-width lowercase hex, {@code 8 digits '.' 16 digits}: sorts as the versions do, so
   * attribute names built on it list in log order.
   */
  public String sortKey() {
    return String.format("%08x.%016x", epoch, version);
  }

  @Override
  public String toString() {
    return epoch + "'" + version;
  }
}
