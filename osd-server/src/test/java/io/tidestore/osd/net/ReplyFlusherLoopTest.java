package io.tidestore.osd.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplyFlusher#send} outside a read batch, on a real event loop (an embedded channel runs
 * pending tasks inside every write, so it cannot show when a flush task runs).
 */
class ReplyFlusherLoopTest {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void oncePerPassFlushesTheRepliesCompletedInALoopPassTogetherAfterIt() throws Exception {
    FlushCounter counter = new FlushCounter();
    CompletableFuture<ChannelHandlerContext> served = new CompletableFuture<>();
    LocalAddress address = new LocalAddress("reply-flusher-test");
    Channel listener =
        new ServerBootstrap()
            .group(group)
            .channel(LocalServerChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline()
                        .addLast(counter)
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelActive(ChannelHandlerContext ctx) {
                                served.complete(ctx);
                              }
                            });
                  }
                })
            .bind(address)
            .sync()
            .channel();
    CompletableFuture<Integer> received = new CompletableFuture<>();
    Channel client =
        new Bootstrap()
            .group(group)
            .channel(LocalChannel.class)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  private int bytes;

                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf buf = (ByteBuf) msg;
                    bytes += buf.readableBytes();
                    buf.release();
                    if (bytes == 32) {
                      received.complete(bytes);
                    }
                  }
                })
            .connect(address)
            .sync()
            .channel();
    try {
      ChannelHandlerContext ctx = served.get(10, TimeUnit.SECONDS);
      ReplyFlusher replies =
          new ReplyFlusher(ctx, ReplyFlusher.Policy.ONCE_PER_PASS, Integer.MAX_VALUE);
      int flushesInThePass =
          ctx.executor()
              .submit(
                  () -> {
                    replies.send(Unpooled.buffer(16).writeZero(16));
                    replies.send(Unpooled.buffer(16).writeZero(16));
                    return counter.flushes;
                  })
              .get(10, TimeUnit.SECONDS);
      assertEquals(0, flushesInThePass, "flushed within the pass");
      assertEquals(32, received.get(10, TimeUnit.SECONDS));
      assertEquals(1, ctx.executor().submit(() -> counter.flushes).get(10, TimeUnit.SECONDS));
    } finally {
      client.close().sync();
      listener.close().sync();
    }
  }
}
