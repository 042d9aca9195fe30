package io.tidestore.store.journal;

import java.util.Arrays;

/**
 * A journal's sealed records in sequence order, oldest first: a ring of batches read by index, so
 * that the loops over it on every loop pass and every completion make no iterator (an {@code
 * ArrayDeque}'s would be the write path's allocation per operation). Owner thread only.
 */
final class SealedQueue {
  private Batch[] ring = new Batch[16];
  private int head;
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The {@code i}th oldest record, {@code 0 <= i < size()}. */
  Batch get(int i) {
    return ring[(head + i) & (ring.length - 1)];
  }

  /** The oldest record, or null. */
  Batch peek() {
    return size == 0 ? null : ring[head];
  }

  void add(Batch b) {
    if (size == ring.length) {
      Batch[] grown = new Batch[ring.length * 2];
      for (int i = 0; i < size; i++) {
        grown[i] = get(i);
      }
      ring = grown;
      head = 0;
    }
    ring[(head + size) & (ring.length - 1)] = b;
    size++;
  }

  /** Takes the oldest record, or null. */
  Batch poll() {
    if (size == 0) {
      return null;
    }
    Batch b = ring[head];
    ring[head] = null;
    head = (head + 1) & (ring.length - 1);
    size--;
    return b;
  }

  void clear() {
    Arrays.fill(ring, null);
    head = 0;
    size = 0;
  }
}
