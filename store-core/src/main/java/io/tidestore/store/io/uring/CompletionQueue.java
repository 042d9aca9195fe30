package io.tidestore.store.io.uring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The completion side of a ring: the kernel publishes CQEs by advancing the tail (release); we read
 * the tail with acquire, read each CQE, and hand the slots back by advancing the head with a
 * release store in {@code finally}. Owner thread only.
 */
final class CompletionQueue {
  /** Receives one CQE. */
  interface Handler {
    void handle(long userData, int res, int flags);
  }

  private final MemorySegment ring;
  private final long headOffset;
  private final long tailOffset;
  private final long overflowOffset;
  private final long cqesOffset;
  private final int mask;
  private final int entries;

  CompletionQueue(MemorySegment ring, MemorySegment params) {
    this.ring = ring;
    long off = ParamsLayout.CQ_OFF;
    this.headOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_HEAD);
    this.tailOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_TAIL);
    this.overflowOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_OVERFLOW);
    this.cqesOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_CQES);
    this.mask =
        ring.get(
            ValueLayout.JAVA_INT,
            params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_RING_MASK));
    this.entries =
        ring.get(
            ValueLayout.JAVA_INT,
            params.get(ValueLayout.JAVA_INT, off + ParamsLayout.CQ_RING_ENTRIES));
  }

  int entries() {
    return entries;
  }

  /** CQEs ready to reap. */
  int ready() {
    return Ordered.getIntAcquire(ring, tailOffset) - Ordered.getIntAcquire(ring, headOffset);
  }

  /** CQEs the kernel could not post (cq_ring->overflow); nonzero means completions were lost. */
  int overflow() {
    return Ordered.getIntOpaque(ring, overflowOffset);
  }

  /** Hands every ready CQE to {@code handler}; returns how many. */
  int reap(Handler handler) {
    int head = Ordered.getIntAcquire(ring, headOffset);
    int tail = Ordered.getIntAcquire(ring, tailOffset);
    int start = head;
    try {
      while (head != tail) {
        long base = cqesOffset + (long) (head & mask) * CqeLayout.SIZE;
        long userData = ring.get(ValueLayout.JAVA_LONG_UNALIGNED, base + CqeLayout.USER_DATA);
        int res = ring.get(ValueLayout.JAVA_INT_UNALIGNED, base + CqeLayout.RES);
        int flags = ring.get(ValueLayout.JAVA_INT_UNALIGNED, base + CqeLayout.FLAGS);
        head++;
        handler.handle(userData, res, flags);
      }
    } finally {
      Ordered.putIntRelease(ring, headOffset, head);
    }
    return head - start;
  }
}
