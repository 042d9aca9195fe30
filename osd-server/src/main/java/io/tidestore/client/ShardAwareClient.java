package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.protocol.ShardMap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A client that sends each object op straight to the reactor owning the object's shard: it reads
 * the SHARD_MAP over a first connection, then opens one connection per reactor port and routes by
 * {@link io.tidestore.osd.ops.ObjectNames}. Without shards (an OSD with no store) ops go over the
 * first connection.
 *
 * <p>Thread-safe: the connection list is fixed after {@link #connect}; see {@link ObjectClient} for
 * the per-connection contract.
 */
public final class ShardAwareClient implements AutoCloseable {
  private final ObjectClient bootstrap;
  private final ShardMap shardMap;
  private final List<ObjectClient> perReactor;

  private ShardAwareClient(
      ObjectClient bootstrap, ShardMap shardMap, List<ObjectClient> perReactor) {
    this.bootstrap = bootstrap;
    this.shardMap = shardMap;
    this.perReactor = List.copyOf(perReactor);
  }

  /** Connects to the OSD's main port, reads its shard map and connects to every reactor. */
  public static CompletableFuture<ShardAwareClient> connect(
      EventLoopGroup group, Class<? extends SocketChannel> channelType, InetSocketAddress address) {
    return connect(group, channelType, address, null);
  }

  /**
   * As above, every connection over TLS when {@code tls} is not null ({@link
   * ObjectClient#connect(EventLoopGroup, Class, InetSocketAddress, SslContext)}); the reactor ports
   * are dialed by the same host as the main port, so the certificate names them all.
   */
  public static CompletableFuture<ShardAwareClient> connect(
      EventLoopGroup group,
      Class<? extends SocketChannel> channelType,
      InetSocketAddress address,
      SslContext tls) {
    return ObjectClient.connect(group, channelType, address, tls)
        .thenCompose(
            first ->
                first
                    .shardMap()
                    .thenCompose(
                        map -> connectReactors(group, channelType, address, tls, first, map))
                    .whenComplete(
                        (client, e) -> {
                          if (e != null) {
                            first.close();
                          }
                        }));
  }

  private static CompletableFuture<ShardAwareClient> connectReactors(
      EventLoopGroup group,
      Class<? extends SocketChannel> channelType,
      InetSocketAddress address,
      SslContext tls,
      ObjectClient first,
      ShardMap map) {
    List<CompletableFuture<ObjectClient>> connecting = new ArrayList<>();
    for (int r = 0; r < map.reactors(); r++) {
      // The InetAddress keeps the name it was resolved from: TLS checks the certificate against
      // the same host string as on the main port.
      InetSocketAddress reactorAddress =
          new InetSocketAddress(address.getAddress(), map.reactorPort(r));
      connecting.add(ObjectClient.connect(group, channelType, reactorAddress, tls));
    }
    return CompletableFuture.allOf(connecting.toArray(CompletableFuture[]::new))
        .handle(
            (ok, e) -> {
              List<ObjectClient> clients = new ArrayList<>();
              for (CompletableFuture<ObjectClient> f : connecting) {
                if (!f.isCompletedExceptionally()) {
                  clients.add(f.join());
                }
              }
              if (e != null) {
                clients.forEach(ObjectClient::close);
                throw new java.util.concurrent.CompletionException(e);
              }
              return new ShardAwareClient(first, map, clients);
            });
  }

  public ShardMap shardMap() {
    return shardMap;
  }

  /** The connection that serves {@code name}: its owning reactor's, or the first one. */
  public ObjectClient connectionFor(String name) {
    int reactor = shardMap.reactorFor(name);
    return reactor < 0 ? bootstrap : perReactor.get(reactor);
  }

  /** The connection landing on reactor {@code r}. */
  public ObjectClient reactor(int r) {
    return perReactor.get(r);
  }

  public CompletableFuture<Void> write(String name, long offset, ByteBuf data) {
    return connectionFor(name).write(name, offset, data);
  }

  public CompletableFuture<ByteBuf> read(String name, long offset, int length) {
    return connectionFor(name).read(name, offset, length);
  }

  public CompletableFuture<ObjectInfo> stat(String name) {
    return connectionFor(name).stat(name);
  }

  public CompletableFuture<Void> truncate(String name, long size) {
    return connectionFor(name).truncate(name, size);
  }

  public CompletableFuture<Void> remove(String name) {
    return connectionFor(name).remove(name);
  }

  /** LIST on the connection of the reactor owning {@code shard}. */
  public CompletableFuture<NamePage> list(int shard, String after, int max) {
    return perReactor.get(shardMap.ownerOf(shard)).list(shard, after, max);
  }

  public CompletableFuture<Void> setXattr(String name, String key, ByteBuf value) {
    return connectionFor(name).setXattr(name, key, value);
  }

  public CompletableFuture<ByteBuf> getXattr(String name, String key) {
    return connectionFor(name).getXattr(name, key);
  }

  public CompletableFuture<Void> removeXattr(String name, String key) {
    return connectionFor(name).removeXattr(name, key);
  }

  @Override
  public void close() {
    perReactor.forEach(ObjectClient::close);
    bootstrap.close();
  }
}
