package io.tidestore.store.index;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.PlacementHash;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code capacity} smallest entries, in hash order ({@link PlacementHash}), of those offered
 * one by one: a bounded max-heap, so a scan over n entries costs O(n log capacity) and memory for
 * the result only. The heap array grows as entries are kept, up to {@code capacity}, so a large
 * limit over few objects allocates little. Single use, owner thread only.
 */
final class HashOrderSelection {
  private static final int INITIAL_SLOTS = 16;

  private final int capacity;
  private ObjectEntry[] heap;
  private int size;

  HashOrderSelection(int capacity) {
    this.capacity = capacity;
    this.heap = new ObjectEntry[Math.min(capacity, INITIAL_SLOTS)];
  }

  /** Keeps {@code e} if it is among the {@code capacity} smallest offered so far. */
  void offer(ObjectEntry e) {
    if (size < capacity) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, (int) Math.min(capacity, 2L * heap.length));
      }
      heap[size] = e;
      siftUp(size++);
    } else if (less(e, heap[0])) {
      heap[0] = e;
      siftDown(0);
    }
  }

  /** The kept entries' keys, smallest first. Empties the selection. */
  List<ObjectKey> drainInOrder() {
    ObjectKey[] keys = new ObjectKey[size];
    while (size > 0) {
      keys[size - 1] = heap[0].key;
      heap[0] = heap[--size];
      heap[size] = null;
      siftDown(0);
    }
    return Arrays.asList(keys);
  }

  private static boolean less(ObjectEntry a, ObjectEntry b) {
    return PlacementHash.compare(a.placementHash(), a.key.name(), b.placementHash(), b.key.name())
        < 0;
  }

  private void siftUp(int i) {
    ObjectEntry e = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(heap[parent], e)) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = e;
  }

  private void siftDown(int i) {
    if (size == 0) {
      return;
    }
    ObjectEntry e = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && less(heap[child], heap[child + 1])) {
        child++;
      }
      if (!less(e, heap[child])) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = e;
  }
}
