package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;

/**
 * One decoded frame: the header fields and its body, a retained slice of the receive buffer that
 * the consumer must {@link #release()}. Confined to the channel's event loop.
 */
public record Frame(int op, int flags, int status, long requestId, ByteBuf body) {
  /** Releases the body. */
  public void release() {
    ReferenceCounted counted = body;
    counted.release();
  }
}
