package io.tidestore.store.io.handoff;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded, lock-free queue for many producer threads and one consumer thread, with no allocation
 * per element: Dmitry Vyukov's bounded MPMC array queue ("Bounded MPMC queue", 1024cores.net)
 * reduced to one consumer. It stands in for the JCTools MPSC array queue (through Netty's {@code
 * PlatformDependent}) the hand-off used while it lived in the daemon: store-core has no Netty.
 *
 * <p>Each cell has a sequence number. A producer claims position {@code p} by a CAS on the tail
 * when its cell's sequence is {@code p}, writes the element, then publishes it with a release store
 * of {@code p + 1}; the consumer reads the element after an acquire load sees {@code p + 1}, clears
 * it, and frees the cell for the next lap with a release store of {@code p + capacity}. Those
 * release/acquire pairs order the plain element accesses.
 *
 * @param <E> element type
 */
final class BoundedMpscQueue<E> {
  private final Object[] elements;
  private final AtomicLongArray sequences;
  private final int mask;
  private final AtomicLong tail = new AtomicLong();

  /** Next position to take; consumer thread only. */
  private long head;

  /** A queue of at least {@code capacity} elements (rounded up to a power of two). */
  BoundedMpscQueue(int capacity) {
    if (capacity < 1 || capacity > (1 << 30)) {
      throw new IllegalArgumentException("capacity must be in 1..2^30, got " + capacity);
    }
    int size = Integer.highestOneBit(capacity);
    if (size < capacity) {
      size <<= 1;
    }
    this.elements = new Object[size];
    this.sequences = new AtomicLongArray(size);
    this.mask = size - 1;
    for (int i = 0; i < size; i++) {
      sequences.set(i, i);
    }
  }

  /** Any thread: appends {@code element}; false when the queue is full. */
  boolean offer(E element) {
    while (true) {
      long position = tail.get();
      int cell = (int) position & mask;
      long sequence = sequences.getAcquire(cell);
      if (sequence == position) {
        if (tail.compareAndSet(position, position + 1)) {
          elements[cell] = element;
          sequences.setRelease(cell, position + 1);
          return true;
        }
      } else if (sequence < position) {
        // The cell still holds the element of the previous lap: the queue is full.
        return false;
      }
      // Another producer took this position first: try the next one.
    }
  }

  /** Consumer thread: the oldest element, or null when none is published yet. */
  E poll() {
    long position = head;
    int cell = (int) position & mask;
    if (sequences.getAcquire(cell) != position + 1) {
      return null;
    }
    @SuppressWarnings("unchecked") // only offer(E) stores into elements
    E element = (E) elements[cell];
    elements[cell] = null;
    sequences.setRelease(cell, position + mask + 1);
    head = position + 1;
    return element;
  }

  /** Consumer thread: whether {@link #poll()} would return null now. */
  boolean isEmpty() {
    long position = head;
    return sequences.getAcquire((int) position & mask) != position + 1;
  }
}
