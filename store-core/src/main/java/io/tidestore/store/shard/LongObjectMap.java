package io.tidestore.store.shard;

import java.util.Arrays;

/**
 * An open-addressing hash map from object ids to values, so the write path can find an object's
 * staging state without boxing its id on every operation. Linear probing, at most half full,
 * backward-shift deletion (no tombstones). Key 0 is reserved as "empty": object ids start at 1.
 * Owner thread only.
 */
final class LongObjectMap<V> {
  private static final int MIN_CAPACITY = 16;

  private long[] keys = new long[MIN_CAPACITY];
  private Object[] values = new Object[MIN_CAPACITY];
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The value of {@code key}, or null. */
  V get(long key) {
    int mask = keys.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      long k = keys[i];
      if (k == key) {
        return cast(values[i]);
      }
      if (k == 0) {
        return null;
      }
    }
  }

  /** Maps {@code key} to {@code value} (not null); returns the previous value or null. */
  V put(long key, V value) {
    if (key == 0) {
      throw new IllegalArgumentException("key 0 is reserved");
    }
    if (value == null) {
      throw new IllegalArgumentException("null value");
    }
    if (2 * (size + 1) > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      long k = keys[i];
      if (k == key) {
        V old = cast(values[i]);
        values[i] = value;
        return old;
      }
      if (k == 0) {
        keys[i] = key;
        values[i] = value;
        size++;
        return null;
      }
    }
  }

  /** Removes {@code key}; returns its value or null. */
  V remove(long key) {
    int mask = keys.length - 1;
    int i = slot(key, mask);
    while (keys[i] != key) {
      if (keys[i] == 0) {
        return null;
      }
      i = (i + 1) & mask;
    }
    V old = cast(values[i]);
    // Backward shift: move later entries of the probe chain into the hole, so lookups that
    // stop at an empty slot still find them.
    int hole = i;
    for (int j = (i + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
      int home = slot(keys[j], mask);
      boolean movable = hole <= j ? home <= hole || home > j : home <= hole && home > j;
      if (movable) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    keys[hole] = 0;
    values[hole] = null;
    size--;
    return old;
  }

  /** Removes every key at least {@code min} (collects them first: not for a hot path). */
  void removeKeysAtLeast(long min) {
    long[] doomed = new long[size];
    int n = 0;
    for (long k : keys) {
      if (k != 0 && k >= min) {
        doomed[n++] = k;
      }
    }
    for (int i = 0; i < n; i++) {
      remove(doomed[i]);
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldKeys.length * 2];
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        put(oldKeys[i], cast(oldValues[i]));
      }
    }
  }

  /** Drops every entry, keeping the table. */
  void clear() {
    Arrays.fill(keys, 0);
    Arrays.fill(values, null);
    size = 0;
  }

  private static int slot(long key, int mask) {
    // Fibonacci hashing spreads sequential ids over the table.
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
  }

  @SuppressWarnings("unchecked") // values only ever holds Vs
  private static <V> V cast(Object o) {
    return (V) o;
  }
}
