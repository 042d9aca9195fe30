package io.tidestore.store.io.uring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory-ordered access to the 32-bit ring indices the kernel shares with us, named after the order
 * they give (as Agrona's AtomicBuffer does). The kernel publishes the CQ tail and consumes the SQ
 * head with smp_store_release/smp_load_acquire (io_uring/io_uring.c); these are the Java side of
 * the same pairs.
 */
final class Ordered {
  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

  private Ordered() {}

  static int getIntAcquire(MemorySegment segment, long offset) {
    return (int) INT.getAcquire(segment, offset);
  }

  static void putIntRelease(MemorySegment segment, long offset, int value) {
    INT.setRelease(segment, offset, value);
  }

  /** For fields only the kernel writes and only a hint is needed (sq flags, overflow count). */
  static int getIntOpaque(MemorySegment segment, long offset) {
    return (int) INT.getOpaque(segment, offset);
  }
}
