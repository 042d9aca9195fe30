package io.tidestore.osd.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.tidestore.osd.reactor.Reactors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * How the daemon's TCP listeners are set up: accepted on the reactors, served by a group of their
 * loops, on the reactors' transport, without Nagle's delay (replies are whole messages a client
 * waits for). The gateways add their own child options. Stateless.
 */
public final class Listeners {
  private Listeners() {}

  /**
   * A bootstrap whose connections land on {@code childGroup} (all reactors, or one), each channel's
   * pipeline built by {@code pipeline}.
   */
  public static ServerBootstrap tcp(
      Reactors reactors, EventLoopGroup childGroup, Consumer<Channel> pipeline) {
    return new ServerBootstrap()
        .group(reactors.group(), childGroup)
        .channel(reactors.transport().serverChannel())
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                pipeline.accept(ch);
              }
            });
  }

  /** Binds {@code address}, waiting until the listener is open. */
  public static Channel bind(ServerBootstrap bootstrap, InetSocketAddress address)
      throws IOException {
    try {
      return bootstrap.bind(address).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding " + address, e);
    }
  }
}
