package io.tidestore.store.cache;

import java.util.Arrays;

/**
 * An open-addressing map from non-negative {@code long} keys to {@code int} values: linear probing
 * over one {@code long[]} and one {@code int[]}, backward-shift deletion (no tombstones), so no
 * boxing and no allocation after construction.
 *
 * <p>The table is sized once for a known maximum number of entries (at most half full, so probe
 * runs stay short); inserting beyond that maximum is a bug in the caller and throws. Not
 * thread-safe: owned by one cache or policy, used on its owner thread.
 */
final class LongIntHashMap {
  /** Returned by {@link #get} for an absent key. */
  static final int MISSING = -1;

  private static final long EMPTY = -1L;

  private final long[] keys;
  private final int[] values;
  private final int mask;
  private final int maxEntries;
  private int size;

  LongIntHashMap(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be >= 1: " + maxEntries);
    }
    int tableSize = Integer.highestOneBit(Math.max(2, maxEntries) * 2 - 1) << 1;
    if (tableSize <= 0) {
      throw new IllegalArgumentException("maxEntries too large: " + maxEntries);
    }
    this.keys = new long[tableSize];
    this.values = new int[tableSize];
    this.mask = tableSize - 1;
    this.maxEntries = maxEntries;
    Arrays.fill(keys, EMPTY);
  }

  /** Keys per home group: 16, so a 64 KiB read of 4 KiB blocks probes one group. */
  static final int GROUP_BITS = 4;

  private static final long GROUP_MASK = (1L << GROUP_BITS) - 1;

  /**
   * Home slot of {@code key}: Fibonacci hashing of the key's group (the key without its low {@link
   * #GROUP_BITS} bits) spreads groups across the table, and the low bits place the keys of one
   * group in consecutive slots. Cache keys are (object, block) with the block in the low bits, so
   * the 16 lookups of a 64 KiB read touch two or three cache lines of {@code keys} and one of
   * {@code values} instead of 32 random lines; each was a DRAM miss on the read hit path.
   */
  private int slot(long key) {
    int group = (int) (((key >>> GROUP_BITS) * 0x9E3779B97F4A7C15L) >>> 32);
    return (group + (int) (key & GROUP_MASK)) & mask;
  }

  int size() {
    return size;
  }

  /** Where {@code key}'s probe starts (tests check the grouping). */
  int homeSlot(long key) {
    return slot(key);
  }

  int get(long key) {
    if (key < 0) {
      return MISSING; // -1 is the empty marker; no valid key is negative
    }
    int i = slot(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == EMPTY) {
        return MISSING;
      }
      i = (i + 1) & mask;
    }
  }

  /** Inserts or replaces; returns the previous value or {@link #MISSING}. */
  int put(long key, int value) {
    if (key < 0) {
      throw new IllegalArgumentException("keys must be >= 0: " + key);
    }
    int i = slot(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        int old = values[i];
        values[i] = value;
        return old;
      }
      if (k == EMPTY) {
        if (size == maxEntries) {
          throw new IllegalStateException("map full: " + maxEntries + " entries");
        }
        keys[i] = key;
        values[i] = value;
        size++;
        return MISSING;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes a key; returns its value or {@link #MISSING}. */
  int remove(long key) {
    if (key < 0) {
      return MISSING;
    }
    int i = slot(key);
    while (true) {
      long k = keys[i];
      if (k == EMPTY) {
        return MISSING;
      }
      if (k == key) {
        int old = values[i];
        shiftBack(i);
        size--;
        return old;
      }
      i = (i + 1) & mask;
    }
  }

  /** Knuth's algorithm R (TAOCP 6.4): pull later run members back over the hole. */
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      long k = keys[i];
      if (k == EMPTY) {
        break;
      }
      int home = slot(k);
      // Move k into the hole unless its home lies cyclically in (hole, i].
      boolean stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        keys[hole] = k;
        values[hole] = values[i];
        hole = i;
      }
    }
    keys[hole] = EMPTY;
  }

  void clear() {
    Arrays.fill(keys, EMPTY);
    size = 0;
  }
}
