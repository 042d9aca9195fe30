package io.tidestore.store.io.uring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The submission side of a ring: SQEs are filled at a private tail, published to the kernel with
 * one release store of the shared tail per batch, and consumed by the kernel (its head advances)
 * inside io_uring_enter. Owner thread only.
 */
final class SubmissionQueue {
  private final MemorySegment ring;
  private final MemorySegment sqes;
  private final long headOffset;
  private final long tailOffset;
  private final long flagsOffset;
  private final long droppedOffset;
  private final int mask;
  private final int entries;

  /** Next SQE to fill; ahead of the published tail by the prepared, unpublished SQEs. */
  private int localTail;

  private int publishedTail;

  SubmissionQueue(MemorySegment ring, MemorySegment sqes, MemorySegment params) {
    this.ring = ring;
    this.sqes = sqes;
    long off = ParamsLayout.SQ_OFF;
    this.headOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_HEAD);
    this.tailOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_TAIL);
    this.flagsOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_FLAGS);
    this.droppedOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_DROPPED);
    long arrayOffset = params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_ARRAY);
    this.mask =
        ring.get(
            ValueLayout.JAVA_INT,
            params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_RING_MASK));
    this.entries =
        ring.get(
            ValueLayout.JAVA_INT,
            params.get(ValueLayout.JAVA_INT, off + ParamsLayout.SQ_RING_ENTRIES));
    // SQEs are used in ring order, so the indirection array is the identity, set once (liburing
    // does the same).
    for (int i = 0; i < entries; i++) {
      ring.set(ValueLayout.JAVA_INT, arrayOffset + 4L * i, i);
    }
    this.localTail = Ordered.getIntAcquire(ring, tailOffset);
    this.publishedTail = localTail;
  }

  int entries() {
    return entries;
  }

  /** Free SQEs: entries minus those prepared or published and not yet consumed by the kernel. */
  int free() {
    return entries - (localTail - Ordered.getIntAcquire(ring, headOffset));
  }

  /** Fills the next SQE (see {@link SqeLayout#write}). The caller checked {@link #free()}. */
  void add(
      byte opcode,
      byte flags,
      int fd,
      long offset,
      long address,
      int length,
      int opFlags,
      long userData,
      short bufIndex) {
    long base = (long) (localTail & mask) * SqeLayout.SIZE;
    SqeLayout.write(
        sqes, base, opcode, flags, fd, offset, address, length, opFlags, userData, bufIndex);
    localTail++;
  }

  /** Prepared SQEs not yet published. */
  int unpublished() {
    return localTail - publishedTail;
  }

  /** Forgets the prepared, unpublished SQEs (close: they never reach the kernel). */
  void discardUnpublished() {
    localTail = publishedTail;
  }

  /** Makes every prepared SQE visible to the kernel: one release store of the tail. */
  void publish() {
    if (localTail != publishedTail) {
      Ordered.putIntRelease(ring, tailOffset, localTail);
      publishedTail = localTail;
    }
  }

  /** Published SQEs the kernel has not consumed yet: the {@code to_submit} of io_uring_enter. */
  int unconsumed() {
    return publishedTail - Ordered.getIntAcquire(ring, headOffset);
  }

  /** IORING_SQ_* flags the kernel raises (CQ_OVERFLOW, TASKRUN). */
  int flags() {
    return Ordered.getIntAcquire(ring, flagsOffset);
  }

  /** SQEs the kernel dropped as invalid (sq_ring->dropped). */
  int dropped() {
    return Ordered.getIntOpaque(ring, droppedOffset);
  }
}
