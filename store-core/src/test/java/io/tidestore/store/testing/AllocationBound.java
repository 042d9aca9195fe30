package io.tidestore.store.testing;

import java.lang.management.ManagementFactory;

/**
 * The heap a fuzz target's decoder allocated on the calling thread, to assert that it stays
 * proportional to the bytes it was given and never to a length field those bytes claim. A decoder
 * that trusts a 32-bit length allocates gigabytes for a 20-byte input; this fails it at once rather
 * than when the JVM runs out of memory.
 */
public final class AllocationBound {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private final long start;

  private AllocationBound() {
    this.start = THREADS.getCurrentThreadAllocatedBytes();
  }

  /** Starts counting the current thread's allocations. */
  static AllocationBound start() {
    return new AllocationBound();
  }

  /** Bytes the current thread allocated since {@link #start}. */
  long allocated() {
    return THREADS.getCurrentThreadAllocatedBytes() - start;
  }

  /**
   * Runs {@code body} once to pay for what its paths load or initialise once per JVM, then checks
   * that a run allocates at most {@code fixed + perInputByte * inputLength} bytes. A run over the
   * bound is tried again (up to three times): under the fuzzer, instrumenting a class or growing
   * the coverage map sometimes allocates on this thread too, once; a decoder that sizes a buffer
   * from a length field is over the bound every time.
   */
  public static void check(
      String what, int inputLength, long fixed, long perInputByte, Runnable body) {
    body.run();
    long least = Long.MAX_VALUE;
    for (int attempt = 0; attempt < 3; attempt++) {
      AllocationBound run = start();
      body.run();
      least = Math.min(least, run.allocated());
      if (least <= fixed + perInputByte * inputLength) {
        return;
      }
    }
    throw new AssertionError(
        what
            + " allocated at least "
            + least
            + " bytes for "
            + inputLength
            + " input bytes, three times (bound "
            + (fixed + perInputByte * inputLength)
            + "): an allocation follows an untrusted length");
  }
}
