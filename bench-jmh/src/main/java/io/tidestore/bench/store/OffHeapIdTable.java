package io.tidestore.bench.store;

/**
 * The shape of an off-heap object index, for {@link IndexTableBenchmark}: an open-addressing hash
 * table from object id to a fixed entry (id, size, block-map reference, flags: 32 bytes a slot),
 * linear probing, deletion by backward shift (no tombstones, so probes stay short under churn). The
 * algorithm is written once; the two subclasses differ only in how they read and write an 8-byte
 * field of the table's memory, which is the question the benchmark asks (chronicle-bytes against
 * the JDK's {@link java.lang.foreign.MemorySegment}).
 */
abstract class OffHeapIdTable implements AutoCloseable {
  static final int SLOT_BYTES = 32;
  private static final int ID = 0;
  private static final int SIZE = 8;
  private static final int BLOCKS = 16;
  private static final int FLAGS = 24;

  final long slots;
  private final long mask;
  private long count;

  /** {@code slots} a power of two; the subclass allocates {@code slots * SLOT_BYTES}, zeroed. */
  OffHeapIdTable(long slots) {
    if (Long.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two: " + slots);
    }
    this.slots = slots;
    this.mask = slots - 1;
  }

  abstract long get(long offset);

  abstract void set(long offset, long value);

  long count() {
    return count;
  }

  private long home(long id) {
    return ((id * 0x9E3779B97F4A7C15L) >>> 17) & mask;
  }

  /** The size field of {@code id}'s entry, or -1 when absent. Ids are never 0 (0 = empty slot). */
  long size(long id) {
    for (long s = home(id); ; s = (s + 1) & mask) {
      long at = s * SLOT_BYTES;
      long k = get(at + ID);
      if (k == id) {
        return get(at + SIZE);
      }
      if (k == 0) {
        return -1;
      }
    }
  }

  /** Inserts or replaces {@code id}'s entry. */
  void put(long id, long size, long blocks) {
    if (count * 4 >= slots * 3) {
      throw new IllegalStateException("table over 75% full");
    }
    for (long s = home(id); ; s = (s + 1) & mask) {
      long at = s * SLOT_BYTES;
      long k = get(at + ID);
      if (k == 0 || k == id) {
        if (k == 0) {
          count++;
        }
        set(at + ID, id);
        set(at + SIZE, size);
        set(at + BLOCKS, blocks);
        set(at + FLAGS, 1);
        return;
      }
    }
  }

  /** Removes {@code id}'s entry; returns whether it was there. */
  boolean remove(long id) {
    long s = home(id);
    while (true) {
      long k = get(s * SLOT_BYTES + ID);
      if (k == 0) {
        return false;
      }
      if (k == id) {
        break;
      }
      s = (s + 1) & mask;
    }
    // Backward shift: pull every later entry of the run whose home is not between the hole and it.
    long hole = s;
    for (long n = (hole + 1) & mask; ; n = (n + 1) & mask) {
      long at = n * SLOT_BYTES;
      long k = get(at + ID);
      if (k == 0) {
        break;
      }
      long h = home(k);
      boolean stays = hole <= n ? (h > hole && h <= n) : (h > hole || h <= n);
      if (!stays) {
        long to = hole * SLOT_BYTES;
        set(to + ID, k);
        set(to + SIZE, get(at + SIZE));
        set(to + BLOCKS, get(at + BLOCKS));
        set(to + FLAGS, get(at + FLAGS));
        hole = n;
      }
    }
    long to = hole * SLOT_BYTES;
    set(to + ID, 0);
    set(to + SIZE, 0);
    set(to + BLOCKS, 0);
    set(to + FLAGS, 0);
    count--;
    return true;
  }

  @Override
  public abstract void close();
}
