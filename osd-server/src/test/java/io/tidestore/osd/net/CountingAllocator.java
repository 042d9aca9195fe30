package io.tidestore.osd.net;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * An unpooled allocator that counts the capacity every buffer was asked with, direct ones included
 * (the thread's heap count does not see native memory). Fuzz targets give it to their channel to
 * assert that a decoder never sizes a buffer from an untrusted length field.
 */
public final class CountingAllocator extends AbstractByteBufAllocator {
  private static final UnpooledByteBufAllocator UNPOOLED = new UnpooledByteBufAllocator(false);
  private long asked;

  public CountingAllocator() {
    super(false);
  }

  /** The capacity asked for since the last {@link #reset}. */
  public long asked() {
    return asked;
  }

  public void reset() {
    asked = 0;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    asked += initialCapacity;
    return UNPOOLED.heapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    asked += initialCapacity;
    return UNPOOLED.directBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }
}
