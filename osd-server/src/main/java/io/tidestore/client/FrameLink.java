package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.collection.LongObjectHashMap;
import io.tidestore.osd.protocol.Frame;
import io.tidestore.osd.protocol.Wire;
import io.tidestore.osd.security.TlsErrors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The pipelined request/reply core of the protocol's clients ({@link ObjectClient}, {@link
 * ClusterLink}): request ids, the table of pending requests, and the handler that matches each
 * reply frame to its request and hands it to that request's {@link Reply} (which reads the status
 * and body as its protocol version says). A lost connection fails every pending request. Ids and
 * the table live on the connection's event loop; calls from other threads hop onto it once.
 */
// Netty write futures: a failed write closes the channel, which fails every pending request.
@SuppressWarnings("FutureReturnValueIgnored")
final class FrameLink {
  /** Writes a request body. */
  @FunctionalInterface
  interface Body {
    void write(ByteBuf out);
  }

  /** Turns a reply frame into a request's value; throws to fail the request. */
  @FunctionalInterface
  interface Reply<T> {
    T read(Frame frame);
  }

  private record Pending<T>(CompletableFuture<T> future, Reply<T> reply) {
    void complete(Frame frame) {
      try {
        future.complete(reply.read(frame));
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
      }
    }
  }

  private final Channel channel;
  private final LongObjectHashMap<Pending<?>> pending = new LongObjectHashMap<>();
  private long nextId = 1;

  FrameLink(Channel channel) {
    this.channel = channel;
  }

  Channel channel() {
    return channel;
  }

  /** The handler that ends the channel's pipeline. */
  ChannelHandler replies() {
    return new Replies();
  }

  /**
   * Sends a request: {@code body} writes its fields, {@code trailing} (released here, may be null)
   * follows them; completes with what {@code reply} reads from the reply frame.
   */
  <T> CompletableFuture<T> send(int op, int bodyHint, Body body, ByteBuf trailing, Reply<T> reply) {
    CompletableFuture<T> future = new CompletableFuture<>();
    if (channel.eventLoop().inEventLoop()) {
      sendOnLoop(op, bodyHint, body, trailing, reply, future);
    } else {
      channel.eventLoop().execute(() -> sendOnLoop(op, bodyHint, body, trailing, reply, future));
    }
    return future;
  }

  private <T> void sendOnLoop(
      int op,
      int bodyHint,
      Body body,
      ByteBuf trailing,
      Reply<T> reply,
      CompletableFuture<T> future) {
    if (!channel.isActive()) {
      if (trailing != null) {
        trailing.release();
      }
      future.completeExceptionally(new ClosedChannelException());
      return;
    }
    long id = nextId++;
    ByteBuf frame = Wire.begin(channel.alloc(), op, 0, 0, id, bodyHint);
    try {
      body.write(frame);
    } catch (RuntimeException e) {
      frame.release();
      if (trailing != null) {
        trailing.release();
      }
      future.completeExceptionally(e);
      return;
    }
    pending.put(id, new Pending<>(future, reply));
    if (trailing == null) {
      channel.writeAndFlush(Wire.finish(frame, 0), channel.voidPromise());
    } else {
      channel.write(Wire.finish(frame, trailing.readableBytes()), channel.voidPromise());
      channel.writeAndFlush(trailing, channel.voidPromise());
    }
  }

  /** Requests sent and not yet answered; call on any thread (an estimate off the loop). */
  int inFlight() {
    return pending.size();
  }

  private static String hostAndPort(Channel channel) {
    return channel.remoteAddress() instanceof InetSocketAddress a
        ? a.getHostString() + ":" + a.getPort()
        : String.valueOf(channel.remoteAddress());
  }

  /** Matches reply frames to pending requests; runs on the connection's loop. */
  private final class Replies extends SimpleChannelInboundHandler<Frame> {
    Replies() {
      super(false);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
      try {
        Pending<?> request = pending.remove(frame.requestId());
        if (request == null) {
          failAll(
              new IOException(
                  "reply to unknown request id "
                      + frame.requestId()
                      + " from "
                      + hostAndPort(ctx.channel())
                      + ", closing"));
          ctx.close();
          return;
        }
        request.complete(frame);
      } finally {
        frame.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      failAll(new ClosedChannelException());
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      failAll(
          TlsErrors.isTls(cause)
              ? new IOException(
                  "TLS with " + hostAndPort(ctx.channel()) + ": " + TlsErrors.describe(cause),
                  cause)
              : cause);
      ctx.close();
    }

    private void failAll(Throwable cause) {
      List<Pending<?>> all = new ArrayList<>(pending.values());
      pending.clear();
      for (Pending<?> request : all) {
        request.future().completeExceptionally(cause);
      }
    }
  }
}
