package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.protocol.Frame;
import io.tidestore.osd.protocol.FrameDescriptor;
import io.tidestore.osd.protocol.Op;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.OpsStatus;
import io.tidestore.osd.protocol.Status;
import io.tidestore.osd.protocol.V2;
import io.tidestore.osd.protocol.Wire;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One protocol v2 connection to a cluster OSD, for clients and for OSDs talking to each other:
 * pipelined requests matched to replies by id ({@link FrameLink}). A reply's leading epoch is
 * handed to an observer (so a sender learns that its map is old); a failed request completes with
 * an {@link ObjectOpsException} of the status's code ({@code STALE_MAP}, {@code TRY_AGAIN}, ...)
 * or, for the protocol's own statuses, an {@link OpException}; a lost connection with {@link
 * java.nio.channels.ClosedChannelException}. Callable from any thread; futures complete on the
 * connection's loop.
 */
// Netty close futures: a failed close needs no handling.
@SuppressWarnings("FutureReturnValueIgnored")
public final class ClusterLink implements AutoCloseable {
  /** Writes a request body. */
  @FunctionalInterface
  public interface Body {
    void write(ByteBuf out);
  }

  private final FrameLink link;
  private final Consumer<Long> epochs;

  private ClusterLink(FrameLink link, Consumer<Long> epochs) {
    this.link = link;
    this.epochs = epochs;
  }

  /**
   * Connects, says HELLO for version 2 and completes with the link, or fails (an OSD that is not a
   * registered cluster OSD refuses version 2 with EPROTO).
   *
   * @param epochs told every epoch a reply carries
   */
  public static CompletableFuture<ClusterLink> connect(
      EventLoopGroup group,
      Class<? extends SocketChannel> channelType,
      InetSocketAddress address,
      SslContext tls,
      Consumer<Long> epochs) {
    ClusterLink[] holder = new ClusterLink[1];
    return Dial.open(
            group,
            channelType,
            address,
            tls,
            ch -> {
              holder[0] = new ClusterLink(new FrameLink(ch), epochs);
              return holder[0].link.replies();
            })
        .thenCompose(channel -> holder[0].hello())
        .thenApply(_ -> holder[0]);
  }

  private CompletableFuture<Void> hello() {
    return link.<Void>send(
            Op.HELLO,
            8,
            out -> {
              out.writeInt(FrameDescriptor.MAGIC);
              out.writeShort(V2.VERSION);
              out.writeShort(V2.VERSION);
            },
            null,
            frame -> {
              ByteBuf body = frame.body();
              if (frame.status() != Status.OK) {
                throw new OpException(
                    frame.status(), Wire.readString(body, 0xffff, "hello refusal"));
              }
              Wire.need(body, 8, "hello reply");
              int version = body.readUnsignedShort();
              if (version != V2.VERSION) {
                throw new OpException(Status.EPROTO, "server chose version " + version);
              }
              return null;
            })
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                close();
              }
            });
  }

  public boolean isActive() {
    return link.channel().isActive();
  }

  public InetSocketAddress remoteAddress() {
    return (InetSocketAddress) link.channel().remoteAddress();
  }

  /**
   * Sends a request: {@code body} writes its fields, {@code trailing} (released here, may be null)
   * follows them. Completes with the reply body after the epoch (the caller releases it).
   */
  public CompletableFuture<ByteBuf> request(int op, int bodyHint, Body body, ByteBuf trailing) {
    return link.send(op, bodyHint, body::write, trailing, this::reply);
  }

  private ByteBuf reply(Frame frame) {
    ByteBuf body = frame.body();
    Wire.need(body, 4, "reply epoch");
    epochs.accept(body.readUnsignedInt());
    if (frame.status() != Status.OK) {
      String message = Wire.readString(body, 0xffff, "error message");
      var code = OpsStatus.codeOf(frame.status());
      throw code != null
          ? new ObjectOpsException(code, message)
          : new OpException(frame.status(), message);
    }
    return body.retainedSlice();
  }

  /** Requests sent and not answered yet (an estimate off the loop). */
  public int inFlight() {
    return link.inFlight();
  }

  @Override
  public void close() {
    link.channel().close();
  }
}
