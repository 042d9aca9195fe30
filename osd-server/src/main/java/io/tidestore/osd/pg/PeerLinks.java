package io.tidestore.osd.pg;

import io.netty.buffer.ByteBuf;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.client.ClusterLink;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.osd.protocol.V2;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * This OSD's links to the other OSDs (protocol v2, TLS when the OSD's listeners have it): one per
 * peer, opened on first use to the address the map gives, opened again after it broke. Requests on
 * one link arrive in the order they were sent, which keeps a PG's replicated ops in version order.
 * Thread-safe; the links' I/O runs on one thread of their own.
 */
// Closing links and scheduling retries: their futures carry nothing to act on.
@SuppressWarnings("FutureReturnValueIgnored")
final class PeerLinks implements AutoCloseable {
  private final MultiThreadIoEventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          1,
          (java.util.concurrent.ThreadFactory)
              r -> Thread.ofPlatform().daemon().name("tidestore-peers").unstarted(r),
          NioIoHandler.newFactory());
  private final SslContext tls;
  private final Consumer<Long> epochs;
  private final ConcurrentHashMap<Integer, Link> links = new ConcurrentHashMap<>();

  /** A link and the address it was opened to (a restarted peer may listen elsewhere). */
  private record Link(String address, CompletableFuture<ClusterLink> link) {}

  PeerLinks(SslContext tls, Consumer<Long> epochs) {
    this.tls = tls;
    this.epochs = epochs;
  }

  private CompletableFuture<ClusterLink> link(int osd, String address) {
    Link current =
        links.compute(
            osd,
            (id, old) -> {
              if (old != null
                  && old.address().equals(address)
                  && (!old.link().isDone()
                      || (!old.link().isCompletedExceptionally()
                          && old.link().join().isActive()))) {
                return old;
              }
              if (old != null && old.link().isDone() && !old.link().isCompletedExceptionally()) {
                old.link().join().close();
              }
              return new Link(
                  address,
                  ClusterLink.connect(
                      group, NioSocketChannel.class, MonAddresses.parseOne(address), tls, epochs));
            });
    return current.link();
  }

  /**
   * Sends {@code op} to OSD {@code osd} at {@code address}; completes once it is durable there. The
   * op's payload stays the caller's: the link sends a retained duplicate.
   */
  CompletableFuture<Void> replicate(int osd, String address, RepOp op) {
    ByteBuf payload = V2.payload(op.mutation());
    return link(osd, address)
        .thenCompose(
            l ->
                l.request(
                    V2.REP_OP,
                    64 + 2 * op.entry().object().length(),
                    out -> V2.writeRepOp(out, op),
                    payload == null ? null : payload.retainedDuplicate()))
        .thenApply(
            body -> {
              body.release();
              return null;
            });
  }

  /** Asks OSD {@code osd} for its copy of {@code pg}. */
  CompletableFuture<PgPeerInfo> query(int osd, String address, long epoch, PgId pg) {
    return link(osd, address)
        .thenCompose(
            l ->
                l.request(V2.PG_QUERY, V2.PREFIX + 4, out -> V2.writePgQuery(out, epoch, pg), null))
        .thenApply(
            body -> {
              try {
                return V2.readPeerInfo(body);
              } finally {
                body.release();
              }
            });
  }

  /** Drops the link to {@code osd} (it went down): the next use opens a new one. */
  void forget(int osd) {
    Link old = links.remove(osd);
    if (old != null) {
      old.link().thenAccept(ClusterLink::close);
    }
  }

  @Override
  public void close() {
    for (Link l : links.values()) {
      l.link().thenAccept(ClusterLink::close);
    }
    links.clear();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
  }
}
