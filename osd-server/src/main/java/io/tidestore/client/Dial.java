package io.tidestore.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.tidestore.osd.protocol.FrameDecoder;
import io.tidestore.osd.security.TlsErrors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Opens a client connection to an object protocol port: TCP with Nagle off, TLS when a context is
 * given (the server's certificate must be signed by its CA and name the host dialed), the frame
 * decoder, then the caller's reply handler. Completes once the TLS handshake is done (at once
 * without TLS), or fails with an {@link IOException} saying why. Shared by the protocol's clients.
 */
// A failed close needs no handling: the channel is being given up.
@SuppressWarnings("FutureReturnValueIgnored")
final class Dial {
  private Dial() {}

  static CompletableFuture<Channel> open(
      EventLoopGroup group,
      Class<? extends SocketChannel> channelType,
      InetSocketAddress address,
      SslContext tls,
      Function<Channel, ChannelHandler> replies) {
    CompletableFuture<Channel> result = new CompletableFuture<>();
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(channelType)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      ch.pipeline()
                          .addLast(
                              "tls",
                              tls.newHandler(
                                  ch.alloc(), address.getHostString(), address.getPort()));
                    }
                    ch.pipeline()
                        .addLast(new FrameDecoder(TimeUnit.SECONDS.toNanos(60), false))
                        .addLast(replies.apply(ch));
                  }
                });
    bootstrap
        .connect(address)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                result.completeExceptionally(
                    new IOException("cannot connect to " + address + ": " + f.cause(), f.cause()));
                return;
              }
              Channel channel = ((io.netty.channel.ChannelFuture) f).channel();
              SslHandler handshake = channel.pipeline().get(SslHandler.class);
              if (handshake == null) {
                result.complete(channel);
                return;
              }
              handshake
                  .handshakeFuture()
                  .addListener(
                      h -> {
                        if (h.isSuccess()) {
                          result.complete(channel);
                        } else {
                          channel.close();
                          result.completeExceptionally(
                              new IOException(
                                  "TLS handshake with "
                                      + address.getHostString()
                                      + ":"
                                      + address.getPort()
                                      + " failed: "
                                      + TlsErrors.describe(h.cause()),
                                  h.cause()));
                        }
                      });
            });
    return result;
  }
}
