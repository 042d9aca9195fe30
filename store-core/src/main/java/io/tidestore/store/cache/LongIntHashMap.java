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

  /** Fibonacci hashing: the golden-ratio multiply spreads sequential keys across the table. */
  private int slot(long key) {
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> 32) & mask;
  }

  int size() {
    return size;
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
