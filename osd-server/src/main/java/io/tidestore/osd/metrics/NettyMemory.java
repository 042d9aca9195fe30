package io.tidestore.osd.metrics;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

/**
 * Direct memory Netty's default allocator holds for the protocol and NBD connections. It is
 * reported next to the budget, not reserved from it: Netty grows and trims its arenas in chunks on
 * its own, so a reservation could only be a guess; the JVM's direct-memory limit bounds it instead
 * (see docs/memory.md).
 */
public final class NettyMemory {
  private NettyMemory() {}

  /**
   * Bytes of direct memory the default allocator holds now (chunks, used or cached); 0 if unknown.
   */
  public static long usedDirectBytes() {
    return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
        ? p.metric().usedDirectMemory()
        : 0;
  }
}
