package io.tidestore.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.osd.protocol.Op;
import io.tidestore.osd.protocol.V2;
import io.tidestore.osd.protocol.V2Recovery;
import io.tidestore.osd.protocol.V2Scrub;
import io.tidestore.osd.protocol.Wire;
import io.tidestore.store.api.Allocation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A client of a replicated cluster (librados' role): follows the monitors' map, sends each op to
 * its object's primary over protocol v2, and when the cluster answers that the map moved, that a PG
 * is not ready, or a primary went away, fetches the map and sends the op again, with the same
 * request id, so that a change applied before the failure is not applied twice. It gives up only
 * after {@link #opTimeout}. Thread-safe; futures complete on the links' thread.
 */
// Each attempt handles its own outcome in whenComplete; the timer's and close's futures carry
// nothing.
@SuppressWarnings("FutureReturnValueIgnored")
public final class ClusterClient implements AutoCloseable {
  /** How long one attempt may wait for its reply before the op is sent again. */
  private static final long ATTEMPT_SECONDS = 15;

  private final MonClient monitors;
  private final SslContext tls;
  private final Duration opTimeout;
  private final long clientId = ThreadLocalRandom.current().nextLong();
  private final AtomicLong tids = new AtomicLong();
  private final ConcurrentHashMap<Integer, CompletableFuture<ClusterLink>> links =
      new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-cluster-client").unstarted(r));
  private final AtomicBoolean fetching = new AtomicBoolean();
  private final MultiThreadIoEventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          1,
          (java.util.concurrent.ThreadFactory)
              r -> Thread.ofPlatform().daemon().name("tidestore-cluster-io").unstarted(r),
          NioIoHandler.newFactory());
  private volatile Placement placement;

  /** Guards map changes for {@link #awaitMap}. */
  private final Object maps = new Object();

  private ClusterClient(MonClient monitors, SslContext tls, Duration opTimeout) {
    this.monitors = monitors;
    this.tls = tls;
    this.opTimeout = opTimeout;
  }

  /**
   * Connects to the monitors and fetches the map.
   *
   * @param monLinks how monitor links are opened (plaintext or TLS)
   * @param osdTls the client context for OSD links, or null for plaintext
   * @param opTimeout how long one op may keep being sent again before it fails
   */
  public static ClusterClient connect(
      List<InetSocketAddress> mons, LinkSecurity monLinks, SslContext osdTls, Duration opTimeout)
      throws IOException, InterruptedException {
    MonClient monitors = new MonClient(mons, monLinks, Duration.ofSeconds(30));
    try {
      monitors.fetchMap();
      ClusterClient client = new ClusterClient(monitors, osdTls, opTimeout);
      client.placement = Placement.of(monitors.map());
      monitors.subscribe(client::newMap);
      return client;
    } catch (IOException | InterruptedException | RuntimeException e) {
      monitors.close();
      throw e;
    }
  }

  /** The state of every PG, as the monitors resolved it from the primaries' reports. */
  public PgSummary pgStats() throws IOException, InterruptedException {
    return monitors.pgStats();
  }

  /** {@link MonClient#awaitPgs}: the PG states once {@code until} holds, or at the timeout. */
  public PgSummary awaitPgs(java.util.function.Predicate<PgSummary> until, Duration timeout)
      throws IOException, InterruptedException {
    return monitors.awaitPgs(until, timeout);
  }

  /** The newest map this client has. */
  public ClusterMap map() {
    return placement.map();
  }

  private void newMap(ClusterMap map) {
    synchronized (maps) {
      if (map.epoch() > placement.map().epoch()) {
        placement = Placement.of(map);
        maps.notifyAll();
      }
    }
  }

  /**
   * Waits until the map satisfies {@code until} (woken by every newer map, and asking the monitors
   * for one each second in case a push was missed); false when {@code timeout} passed first.
   */
  public boolean awaitMap(java.util.function.Predicate<ClusterMap> until, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (maps) {
      while (!until.test(placement.map())) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wantEpoch(placement.map().epoch() + 1);
        maps.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)));
      }
      return true;
    }
  }

  /** Fetches the map in the background when {@code epoch} is newer than ours. */
  private void wantEpoch(long epoch) {
    if (epoch <= placement.map().epoch() || !fetching.compareAndSet(false, true)) {
      return;
    }
    timer.execute(
        () -> {
          try {
            newMap(monitors.fetchMap());
          } catch (IOException e) {
            // The next attempt asks again.
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            fetching.set(false);
          }
        });
  }

  /** One op, sent until it succeeds, fails for good, or times out. */
  private final class Attempts<T> {
    final int op;
    final String pool;
    final String name;
    final ClusterLink.Body fields;
    final ByteBuf payload; // released once the op is over
    final Function<ByteBuf, T> parser;
    final long tid = tids.incrementAndGet();

    /** The PG an op names instead of an object (LIST_PG, DEEP_SCRUB), or -1. */
    int seed = -1;

    /** How long one attempt may wait for its reply. */
    long attemptSeconds = ATTEMPT_SECONDS;

    final long deadline = System.nanoTime() + opTimeout.toNanos();
    final CompletableFuture<T> result = new CompletableFuture<>();
    int tries;

    Attempts(
        int op,
        String pool,
        String name,
        ClusterLink.Body fields,
        ByteBuf payload,
        Function<ByteBuf, T> parser) {
      this.op = op;
      this.pool = pool;
      this.name = name;
      this.fields = fields;
      this.payload = payload;
      this.parser = parser;
      result.whenComplete(
          (v, e) -> {
            if (payload != null) {
              payload.release();
            }
          });
    }

    void send() {
      ClusterMap map = placement.map();
      PoolInfo info = map.pool(pool).orElse(null);
      if (info == null) {
        retryOrFail(
            new ObjectOpsException(Code.NOT_FOUND, "no pool " + pool + " in map " + map.epoch()));
        return;
      }
      PgMapping mapping =
          seed >= 0 ? placement.pg(new PgId(info.id(), seed)) : placement.object(info, name);
      int primary = mapping.actingPrimary();
      if (primary < 0) {
        retryOrFail(
            new ObjectOpsException(Code.TRY_AGAIN, "pg " + mapping.pg() + " has no OSD up"));
        return;
      }
      String address = map.osds().get(primary).address();
      // The attempt, which a timeout may end first: a reply that comes after it is released.
      CompletableFuture<ByteBuf> attempt = new CompletableFuture<>();
      link(primary, address)
          .thenCompose(
              l ->
                  l.request(
                      op,
                      V2.PREFIX + 2 + Wire.utf8Length(name) + 16,
                      out -> {
                        if (seed >= 0) {
                          V2Recovery.writeHeader(out, map.epoch(), mapping.pg());
                        } else {
                          V2.writePrefix(out, map.epoch(), info.id(), clientId, tid);
                          Wire.writeString(out, name);
                        }
                        fields.write(out);
                      },
                      payload == null ? null : payload.retainedDuplicate()))
          .whenComplete(
              (body, e) -> {
                if (e != null) {
                  attempt.completeExceptionally(e);
                } else if (!attempt.complete(body)) {
                  body.release(); // too late: the attempt timed out and the op was sent again
                }
              });
      // A link that never answers (a hung handshake or OSD) is given up and the op sent again.
      attempt
          .orTimeout(attemptSeconds, TimeUnit.SECONDS)
          .whenComplete(
              (body, e) -> {
                if (e == null) {
                  try {
                    result.complete(parser.apply(body));
                  } catch (RuntimeException ex) {
                    result.completeExceptionally(ex);
                  } finally {
                    body.release();
                  }
                  return;
                }
                Throwable cause = ObjectOpsException.unwrap(e);
                if (cause instanceof ObjectOpsException x
                    && x.code() != Code.TRY_AGAIN
                    && x.code() != Code.STALE_MAP
                    && x.code() != Code.CLOSED) {
                  result.completeExceptionally(x); // the op's own answer (ENOENT, ...)
                  return;
                }
                if (cause instanceof ObjectOpsException x && x.code() == Code.STALE_MAP) {
                  wantEpoch(placement.map().epoch() + 1);
                } else if (!(cause instanceof ObjectOpsException)) {
                  forget(primary);
                  wantEpoch(placement.map().epoch() + 1);
                }
                retryOrFail(cause);
              });
    }

    private void retryOrFail(Throwable cause) {
      if (System.nanoTime() - deadline > 0) {
        result.completeExceptionally(
            new ObjectOpsException(
                Code.TRY_AGAIN,
                "gave up on "
                    + Op.name(op)
                    + " of "
                    + (seed >= 0
                        ? "pg " + Integer.toHexString(seed) + " of pool " + pool
                        : pool + "/" + name)
                    + " after "
                    + opTimeout
                    + ": "
                    + cause.getMessage()));
        return;
      }
      long delay = Math.min(1000, 25L << Math.min(tries++, 5));
      timer.schedule(this::send, delay, TimeUnit.MILLISECONDS);
    }
  }

  private CompletableFuture<ClusterLink> link(int osd, String address) {
    return links.compute(
        osd,
        (id, old) -> {
          if (old != null
              && (!old.isDone() || (!old.isCompletedExceptionally() && old.join().isActive()))) {
            return old;
          }
          return ClusterLink.connect(
              group, NioSocketChannel.class, MonAddresses.parseOne(address), tls, this::wantEpoch);
        });
  }

  private void forget(int osd) {
    CompletableFuture<ClusterLink> old = links.remove(osd);
    if (old != null) {
      old.thenAccept(ClusterLink::close);
    }
  }

  private <T> CompletableFuture<T> run(
      int op,
      String pool,
      String name,
      ClusterLink.Body fields,
      ByteBuf payload,
      Function<ByteBuf, T> parser) {
    Attempts<T> a = new Attempts<>(op, pool, name, fields, payload, parser);
    a.send();
    return a.result;
  }

  /**
   * Names of the objects of PG {@code seed} of {@code pool}, as its primary holds them, after
   * {@code after} ("" = from the start), at most {@code max}, in the store's hash order. Needs the
   * {@code *} cap where the OSDs have an auth file.
   */
  public CompletableFuture<NamePage> listPg(String pool, int seed, String after, int max) {
    Attempts<NamePage> a =
        new Attempts<>(
            V2Recovery.LIST_PG,
            pool,
            "",
            out -> V2Recovery.writeListPg(out, after, max),
            null,
            V2Recovery::readNamePage);
    a.seed = seed;
    a.send();
    return a.result;
  }

  /**
   * Asks the primary of PG {@code seed} of {@code pool} to deep-scrub it now (docs/cluster.md,
   * "Deep scrub") and completes with its report. A scrub lasts as long as reading the PG takes, so
   * one attempt may wait the whole op timeout; it is sent again (and scrubbed again) when the PG
   * changes its primary or interval meanwhile. Needs the {@code *} cap where the OSDs have an auth
   * file.
   */
  public CompletableFuture<ScrubReport> deepScrub(String pool, int seed) {
    Attempts<ScrubReport> a =
        new Attempts<>(V2Scrub.DEEP_SCRUB, pool, "", out -> {}, null, V2Scrub::readReport);
    a.seed = seed;
    a.attemptSeconds = Math.max(ATTEMPT_SECONDS, opTimeout.toSeconds());
    a.send();
    return a.result;
  }

  /** Writes {@code data} (released by the client) once every replica has it durable. */
  public CompletableFuture<Void> write(String pool, String name, long offset, ByteBuf data) {
    return run(Op.WRITE, pool, name, out -> out.writeLong(offset), data, b -> null);
  }

  /** Reads from the primary; the buffer belongs to the caller. */
  public CompletableFuture<ByteBuf> read(String pool, String name, long offset, int length) {
    return run(
        Op.READ,
        pool,
        name,
        out -> {
          out.writeLong(offset);
          out.writeInt(length);
        },
        null,
        ByteBuf::retainedSlice);
  }

  public CompletableFuture<ObjectInfo> stat(String pool, String name) {
    return run(
        Op.STAT,
        pool,
        name,
        out -> {},
        null,
        b -> {
          Wire.need(b, 16, "stat reply");
          return new ObjectInfo(b.readLong(), b.readLong());
        });
  }

  public CompletableFuture<Void> truncate(String pool, String name, long size) {
    return run(Op.TRUNCATE, pool, name, out -> out.writeLong(size), null, b -> null);
  }

  /** Frees whole 4 KiB blocks of the object on every replica (TRIM); completes once durable. */
  public CompletableFuture<Void> punch(String pool, String name, long offset, long length) {
    return run(
        Op.PUNCH,
        pool,
        name,
        out -> {
          out.writeLong(offset);
          out.writeLong(length);
        },
        null,
        b -> null);
  }

  /** Which bytes of a range of the object hold data, as its primary's store has them. */
  public CompletableFuture<Allocation> allocation(
      String pool, String name, long offset, long length) {
    return run(
        Op.ALLOCATION,
        pool,
        name,
        out -> V2.writeAllocationRequest(out, offset, length),
        null,
        V2::readAllocation);
  }

  public CompletableFuture<Void> remove(String pool, String name) {
    return run(Op.REMOVE, pool, name, out -> {}, null, b -> null);
  }

  public CompletableFuture<Void> setXattr(String pool, String name, String key, ByteBuf value) {
    return run(Op.SET_XATTR, pool, name, out -> Wire.writeString(out, key), value, b -> null);
  }

  public CompletableFuture<ByteBuf> getXattr(String pool, String name, String key) {
    return run(
        Op.GET_XATTR, pool, name, out -> Wire.writeString(out, key), null, ByteBuf::retainedSlice);
  }

  public CompletableFuture<Void> removeXattr(String pool, String name, String key) {
    return run(Op.RM_XATTR, pool, name, out -> Wire.writeString(out, key), null, b -> null);
  }

  @Override
  public void close() {
    for (CompletableFuture<ClusterLink> l : links.values()) {
      l.thenAccept(ClusterLink::close);
    }
    links.clear();
    timer.shutdownNow();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    monitors.close();
  }
}
