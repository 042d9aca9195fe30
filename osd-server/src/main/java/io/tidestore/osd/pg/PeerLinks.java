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
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.osd.protocol.V2;
import io.tidestore.osd.protocol.V2Recovery;
import io.tidestore.osd.protocol.V2Scrub;
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
              // A handshake that never ends (the address now belongs to some other listener: a
              // restarted daemon's port reused) must not hold every request to this OSD.
              return new Link(
                  address,
                  ClusterLink.connect(
                          group,
                          NioSocketChannel.class,
                          MonAddresses.parseOne(address),
                          tls,
                          epochs)
                      .orTimeout(REQUEST_SECONDS, java.util.concurrent.TimeUnit.SECONDS));
            });
    return current.link();
  }

  /**
   * Sends {@code op} to OSD {@code osd} at {@code address}; completes once it is durable there. The
   * op's payload stays the caller's: the link sends a retained duplicate.
   */
  CompletableFuture<Void> replicate(int osd, String address, RepOp op) {
    ByteBuf payload = V2.payload(op.mutation());
    return timed(
            osd,
            link(osd, address)
                .thenCompose(
                    l ->
                        l.request(
                            V2.REP_OP,
                            64 + 2 * op.entry().object().length(),
                            out -> V2.writeRepOp(out, op),
                            payload == null ? null : payload.retainedDuplicate())))
        .thenApply(
            body -> {
              body.release();
              return null;
            });
  }

  /** Asks OSD {@code osd} for its copy of {@code pg}. */
  CompletableFuture<PgPeerInfo> query(int osd, String address, long epoch, PgId pg) {
    return pgOp(osd, address, V2.PG_QUERY, epoch, pg)
        .thenApply(
            body -> {
              try {
                return V2.readPeerInfo(body);
              } finally {
                body.release();
              }
            });
  }

  /**
   * Tells OSD {@code osd}, a member of the write set, that this primary activates {@code pg} in
   * {@code epoch}; completes once the member keeps it.
   */
  CompletableFuture<Void> activate(int osd, String address, long epoch, PgId pg) {
    return emptyReply(pgOp(osd, address, V2.ACTIVATE, epoch, pg));
  }

  /**
   * Asks {@code pg}'s primary {@code osd} whether this OSD ({@code self}), outside its acting set,
   * may remove its copy; completes when it may, fails (TRY_AGAIN) when not yet.
   */
  CompletableFuture<Void> strayQuery(int osd, String address, long epoch, PgId pg, int self) {
    return emptyReply(
        timed(
            osd,
            link(osd, address)
                .thenCompose(
                    l ->
                        l.request(
                            V2.STRAY_QUERY,
                            V2.PREFIX + 4,
                            out -> V2.writeStrayQuery(out, epoch, pg, self),
                            null))));
  }

  /** Completes when {@code reply} does, releasing its (empty) body. */
  private static CompletableFuture<Void> emptyReply(CompletableFuture<ByteBuf> reply) {
    return reply.thenApply(
        body -> {
          body.release();
          return null;
        });
  }

  /** Sends {@code op} (PG_QUERY or ACTIVATE), whose body is the PG alone; the reply's body. */
  private CompletableFuture<ByteBuf> pgOp(int osd, String address, int op, long epoch, PgId pg) {
    return timed(
        osd,
        link(osd, address)
            .thenCompose(
                l -> l.request(op, V2.PREFIX + 4, out -> V2.writePgQuery(out, epoch, pg), null)));
  }

  /**
   * How long a peering or recovery request may go unanswered before it fails (and is asked again by
   * peering, or recovery starts over): a member that stopped answering must not hold a PG.
   */
  static final long REQUEST_SECONDS = 30;

  /**
   * Sends a recovery request to OSD {@code osd}: the header, then {@code fields}, then {@code
   * trailing} (released here, may be null), also when the link cannot be made.
   */
  private CompletableFuture<ByteBuf> recovery(
      int osd,
      String address,
      int op,
      long epoch,
      PgId pg,
      int hint,
      ClusterLink.Body fields,
      ByteBuf trailing) {
    return timed(
        osd,
        link(osd, address)
            .handle(
                (l, failure) -> {
                  if (failure != null) {
                    // Never sent: the request would have released it, nothing else will.
                    if (trailing != null) {
                      trailing.release();
                    }
                    return CompletableFuture.<ByteBuf>failedFuture(failure);
                  }
                  return l.request(
                      op,
                      V2.PREFIX + 4 + hint,
                      out -> {
                        V2Recovery.writeHeader(out, epoch, pg);
                        fields.write(out);
                      },
                      trailing);
                })
            .thenCompose(sent -> sent));
  }

  private static <T> T reading(ByteBuf body, java.util.function.Function<ByteBuf, T> reader) {
    try {
      return reader.apply(body);
    } finally {
      body.release();
    }
  }

  CompletableFuture<LogCopy> getLog(int osd, String address, long epoch, PgId pg) {
    return recovery(osd, address, V2Recovery.GET_LOG, epoch, pg, 0, out -> {}, null)
        .thenApply(b -> reading(b, V2Recovery::readLog));
  }

  /** Sends {@code chunk} (released here) for OSD {@code osd} to hold. */
  CompletableFuture<Void> push(int osd, String address, long epoch, PgId pg, ObjectChunk chunk) {
    return recovery(
            osd,
            address,
            V2Recovery.PUSH,
            epoch,
            pg,
            64,
            out -> V2Recovery.writeChunkFields(out, chunk),
            chunk.data())
        .thenApply(b -> reading(b, x -> null));
  }

  CompletableFuture<ObjectChunk> pull(
      int osd, String address, long epoch, PgId pg, String name, long offset, int max) {
    return recovery(
            osd,
            address,
            V2Recovery.PULL,
            epoch,
            pg,
            16 + 2 * name.length(),
            out -> V2Recovery.writePull(out, name, offset, max),
            null)
        .thenApply(b -> reading(b, V2Recovery::readChunk));
  }

  CompletableFuture<Void> logSync(int osd, String address, long epoch, PgId pg, LogSync sync) {
    return recovery(
            osd,
            address,
            V2Recovery.LOG_SYNC,
            epoch,
            pg,
            64 * (sync.add().size() + sync.remove().size()),
            out -> V2Recovery.writeLogSync(out, sync),
            null)
        .thenApply(b -> reading(b, x -> null));
  }

  CompletableFuture<NamePage> listPg(
      int osd, String address, long epoch, PgId pg, String after, int max) {
    return recovery(
            osd,
            address,
            V2Recovery.LIST_PG,
            epoch,
            pg,
            8 + 2 * after.length(),
            out -> V2Recovery.writeListPg(out, after, max),
            null)
        .thenApply(b -> reading(b, V2Recovery::readNamePage));
  }

  /** OSD {@code osd}'s copy of object {@code name} of {@code pg}, as deep scrub compares it. */
  CompletableFuture<ObjectDigest> blockCrcs(
      int osd, String address, long epoch, PgId pg, String name) {
    return recovery(
            osd,
            address,
            V2Scrub.BLOCK_CRCS,
            epoch,
            pg,
            2 + 3 * name.length(),
            out -> V2Scrub.writeBlockCrcsRequest(out, name),
            null)
        .thenApply(b -> reading(b, V2Scrub::readDigest));
  }

  /**
   * {@code request} with a deadline: a request that goes unanswered fails, and the link it went on
   * is dropped, so the next request opens a new one.
   */
  private <T> CompletableFuture<T> timed(int osd, CompletableFuture<T> request) {
    return request
        .orTimeout(REQUEST_SECONDS, java.util.concurrent.TimeUnit.SECONDS)
        .whenComplete(
            (v, e) -> {
              if (e != null
                  && io.tidestore.osd.ops.ObjectOpsException.unwrap(e)
                      instanceof java.util.concurrent.TimeoutException) {
                forget(osd);
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
