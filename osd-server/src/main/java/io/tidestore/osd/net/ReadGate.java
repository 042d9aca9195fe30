package io.tidestore.osd.net;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * A connection's reading, paused for one or more reasons and resumed when none is left: the
 * handler's backpressure (requests in flight, an unwritable channel) and the decoder's wait for the
 * {@link InboundBudget}, and the NBD handshake's wait for an image lookup. They used to switch
 * auto-read on their own, so one could resume what the other had paused. Confined to the channel's
 * event loop.
 */
public final class ReadGate {
  /** The handler's backpressure: too many requests in flight, or the channel is not writable. */
  public static final int BACKPRESSURE = 1;

  /** The decoder waits for the in-flight frame budget. */
  public static final int BUDGET = 2;

  /** The NBD handshake waits for an image lookup. */
  public static final int HANDSHAKE = 4;

  private static final AttributeKey<ReadGate> KEY =
      AttributeKey.valueOf(ReadGate.class, "readGate");

  private final Channel channel;
  private int pausedBy;

  private ReadGate(Channel channel) {
    this.channel = channel;
  }

  /** The gate of {@code channel}, made on first use. */
  public static ReadGate of(Channel channel) {
    Attribute<ReadGate> attr = channel.attr(KEY);
    ReadGate gate = attr.get();
    if (gate == null) {
      gate = new ReadGate(channel);
      attr.set(gate);
    }
    return gate;
  }

  /** Stops reading for {@code reason}. */
  public void pause(int reason) {
    pausedBy |= reason;
    if (channel.config().isAutoRead()) {
      channel.config().setAutoRead(false);
    }
  }

  /** Drops {@code reason}; reading resumes when no reason is left. */
  public void resume(int reason) {
    if ((pausedBy & reason) == 0) {
      return;
    }
    pausedBy &= ~reason;
    if (pausedBy == 0) {
      channel.config().setAutoRead(true);
    }
  }

  /** True while {@code reason} holds reading. */
  public boolean isPaused(int reason) {
    return (pausedBy & reason) != 0;
  }
}
