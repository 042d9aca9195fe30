package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.protocol.FrameDescriptor;
import io.tidestore.osd.protocol.Op;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.ShardMap;
import io.tidestore.osd.protocol.Status;
import io.tidestore.osd.protocol.V2Recovery;
import io.tidestore.osd.protocol.Wire;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One protocol v1 connection: async and pipelined. Every call returns at once with a future; many
 * requests may be in flight, and replies, which the server may send in any order, are matched by
 * request id.
 *
 * <p>Threading: methods may be called from any thread. Request ids and the table of pending
 * requests live on the connection's event loop (calls from other threads hop onto it once); futures
 * complete on that loop, so callbacks must not block. Buffers passed in are released by the client;
 * buffers returned (read data, xattr values) belong to the caller, who releases them.
 */
// Netty write futures: a failed write closes the channel, which fails every pending request.
@SuppressWarnings("FutureReturnValueIgnored")
public final class ObjectClient implements AutoCloseable {
  private final FrameLink link;
  private final Channel channel;
  private volatile int reactor = -1;
  private volatile int reactorCount;

  private ObjectClient(Channel channel) {
    this.link = new FrameLink(channel);
    this.channel = channel;
  }

  /**
   * Connects to {@code address} on {@code group} (channels of type {@code channelType}) and
   * completes after the HELLO handshake.
   */
  public static CompletableFuture<ObjectClient> connect(
      EventLoopGroup group, Class<? extends SocketChannel> channelType, InetSocketAddress address) {
    return connect(group, channelType, address, null);
  }

  /**
   * As above, over TLS when {@code tls} is not null: the server's certificate must be signed by the
   * context's CA and name the host dialed ({@code address}'s host string, an IP address or a name),
   * and the client presents its own certificate when the context has one. A failed handshake, or a
   * server that refuses this client's certificate, fails the future with an {@link IOException}
   * saying why.
   */
  public static CompletableFuture<ObjectClient> connect(
      EventLoopGroup group,
      Class<? extends SocketChannel> channelType,
      InetSocketAddress address,
      SslContext tls) {
    CompletableFuture<ObjectClient> result = new CompletableFuture<>();
    ObjectClient[] holder = new ObjectClient[1];
    Dial.open(
            group,
            channelType,
            address,
            tls,
            ch -> {
              holder[0] = new ObjectClient(ch);
              return holder[0].link.replies();
            })
        .whenComplete(
            (channel, e) -> {
              if (e != null) {
                result.completeExceptionally(e);
              } else {
                holder[0].greet(address, result, tls != null);
              }
            });
    return result;
  }

  /** Says HELLO; completes {@code result} with this client or why the server refused it. */
  private void greet(
      InetSocketAddress address, CompletableFuture<ObjectClient> result, boolean tls) {
    // Whether TLS was asked for, not whether the pipeline has a TLS handler: a server that refuses
    // the client's certificate closes the connection just after the handshake, and a closed
    // channel's pipeline is empty.
    hello()
        .whenComplete(
            (ok, e) -> {
              if (e == null) {
                result.complete(this);
                return;
              }
              close();
              Throwable cause = ObjectOpsException.unwrap(e);
              if (cause instanceof ClosedChannelException) {
                // TLS 1.3 ends the client's handshake before the server has checked the client's
                // certificate: a refusal arrives as an alert, or as a close, after it. A daemon
                // that requires TLS closes a plaintext connection without a word.
                cause =
                    new IOException(
                        "the daemon at "
                            + address.getHostString()
                            + ":"
                            + address.getPort()
                            + " closed the connection before answering HELLO: "
                            + (tls
                                ? "it refused this client's certificate (see the daemon's log),"
                                    + " or it is not a Tidestore object port"
                                : "does it require TLS (--tls-certificates DIR)?"),
                        cause);
              }
              result.completeExceptionally(cause);
            });
  }

  private CompletableFuture<Void> hello() {
    return send(
        Op.HELLO,
        8,
        out -> {
          out.writeInt(FrameDescriptor.MAGIC);
          out.writeShort(FrameDescriptor.VERSION);
          out.writeShort(FrameDescriptor.VERSION);
        },
        null,
        body -> {
          Wire.need(body, 8, "hello reply");
          int version = body.readUnsignedShort();
          if (version != FrameDescriptor.VERSION) {
            throw new OpException(Status.EPROTO, "server chose version " + version);
          }
          reactor = body.readUnsignedShort();
          reactorCount = body.readUnsignedShort();
          return null;
        });
  }

  /** The reactor serving this connection, from the HELLO reply. */
  public int reactor() {
    return reactor;
  }

  /** The server's reactor count, from the HELLO reply. */
  public int reactorCount() {
    return reactorCount;
  }

  public InetSocketAddress remoteAddress() {
    return (InetSocketAddress) channel.remoteAddress();
  }

  /** PING: the server echoes {@code payload} (at most 1 KiB). */
  public CompletableFuture<byte[]> ping(byte[] payload) {
    return send(Op.PING, payload.length, out -> out.writeBytes(payload), null, ObjectClient::bytes);
  }

  public CompletableFuture<ShardMap> shardMap() {
    return send(Op.SHARD_MAP, 0, out -> {}, null, ShardMap::readFrom);
  }

  /** WRITE {@code data} (released by the client) at {@code offset}; completes once durable. */
  public CompletableFuture<Void> write(String name, long offset, ByteBuf data) {
    return send(
        Op.WRITE,
        2 + Wire.utf8Length(name) + 8,
        out -> {
          Wire.writeString(out, name);
          out.writeLong(offset);
        },
        data,
        body -> null);
  }

  /** READ; the returned buffer belongs to the caller. */
  public CompletableFuture<ByteBuf> read(String name, long offset, int length) {
    return send(
        Op.READ,
        2 + Wire.utf8Length(name) + 12,
        out -> {
          Wire.writeString(out, name);
          out.writeLong(offset);
          out.writeInt(length);
        },
        null,
        body -> body.retainedSlice());
  }

  public CompletableFuture<ObjectInfo> stat(String name) {
    return send(
        Op.STAT,
        2 + Wire.utf8Length(name),
        out -> Wire.writeString(out, name),
        null,
        body -> {
          Wire.need(body, 16, "stat reply");
          return new ObjectInfo(body.readLong(), body.readLong());
        });
  }

  public CompletableFuture<Void> truncate(String name, long size) {
    return send(
        Op.TRUNCATE,
        2 + Wire.utf8Length(name) + 8,
        out -> {
          Wire.writeString(out, name);
          out.writeLong(size);
        },
        null,
        body -> null);
  }

  public CompletableFuture<Void> remove(String name) {
    return send(
        Op.REMOVE, 2 + Wire.utf8Length(name), out -> Wire.writeString(out, name), null, b -> null);
  }

  /** LIST names of one shard after {@code after} ("" = from the start), at most {@code max}. */
  public CompletableFuture<NamePage> list(int shard, String after, int max) {
    return send(
        Op.LIST,
        10 + Wire.utf8Length(after),
        out -> {
          out.writeInt(shard);
          out.writeInt(max);
          Wire.writeString(out, after);
        },
        null,
        V2Recovery::readNamePage);
  }

  public CompletableFuture<Void> setXattr(String name, String key, ByteBuf value) {
    return send(
        Op.SET_XATTR,
        4 + Wire.utf8Length(name) + Wire.utf8Length(key),
        out -> {
          Wire.writeString(out, name);
          Wire.writeString(out, key);
        },
        value,
        body -> null);
  }

  public CompletableFuture<ByteBuf> getXattr(String name, String key) {
    return send(
        Op.GET_XATTR,
        4 + Wire.utf8Length(name) + Wire.utf8Length(key),
        out -> {
          Wire.writeString(out, name);
          Wire.writeString(out, key);
        },
        null,
        body -> body.retainedSlice());
  }

  public CompletableFuture<Void> removeXattr(String name, String key) {
    return send(
        Op.RM_XATTR,
        4 + Wire.utf8Length(name) + Wire.utf8Length(key),
        out -> {
          Wire.writeString(out, name);
          Wire.writeString(out, key);
        },
        null,
        body -> null);
  }

  /**
   * Sends a raw frame with any op and body: for tools and tests that probe the server's handling of
   * ops it may not know. Completes with the reply body's bytes.
   */
  public CompletableFuture<byte[]> sendRaw(int op, byte[] body) {
    return send(op, body.length, out -> out.writeBytes(body), null, ObjectClient::bytes);
  }

  private static byte[] bytes(ByteBuf body) {
    byte[] bytes = new byte[body.readableBytes()];
    body.readBytes(bytes);
    return bytes;
  }

  @FunctionalInterface
  private interface BodyWriter {
    void write(ByteBuf out);
  }

  /**
   * Sends a request; a version 1 reply's non-OK status fails it with an {@link OpException} of that
   * status and the reply's message, else {@code parser} reads the body.
   */
  private <T> CompletableFuture<T> send(
      int op, int bodyHint, BodyWriter writer, ByteBuf trailing, Function<ByteBuf, T> parser) {
    return link.send(
        op,
        bodyHint,
        writer::write,
        trailing,
        frame -> {
          ByteBuf body = frame.body();
          if (frame.status() != Status.OK) {
            String message;
            try {
              message = Wire.readString(body, 0xffff, "error message");
            } catch (OpException e) {
              message = "(no message)";
            }
            throw new OpException(frame.status(), message);
          }
          return parser.apply(body);
        });
  }

  /** Requests sent and not yet answered; call on any thread (an estimate off the loop). */
  public int inFlight() {
    return link.inFlight();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
