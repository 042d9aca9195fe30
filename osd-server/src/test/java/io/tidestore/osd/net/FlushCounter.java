package io.tidestore.osd.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;

/** Counts the flushes that pass it on their way to the transport. Used on one loop. */
final class FlushCounter extends ChannelOutboundHandlerAdapter {
  int flushes;

  @Override
  public void flush(ChannelHandlerContext ctx) {
    flushes++;
    ctx.flush();
  }
}
