package io.tidestore.osd.pg;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.handler.ssl.SslContext;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.pgstats.PgReport;
import io.tidestore.cluster.pgstats.PgStat;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.ClusterOps;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.osd.store.ShardTasks;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ShardStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A cluster OSD's PGs (issue 17, stop 3): serves protocol v2 by routing each request to the shard
 * holding its PG ({@link PgMeta#shardOf}), where that shard's {@link ShardPgs} runs it on the
 * shard's thread: as primary ({@link Primary}), as replica ({@link Replica}), or peering ({@link
 * Peering}). Follows the map: every new epoch moves the loaded PGs to it. Deep-scrubs the PGs it is
 * the primary of on a schedule and on demand ({@link DeepScrub}), one at a time.
 */
public final class PgEngine implements ClusterOps, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PgEngine.class.getName());

  private final ShardTasks tasks;
  private final PgServices services;
  private final ShardPgs[] shards;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-pg-timer").unstarted(r));
  private final int self;
  private final PgMetrics metrics;
  private final AtomicBoolean gathering = new AtomicBoolean();
  private volatile MapView view;
  private volatile PgReport latestReport = PgReport.NONE;

  /**
   * @param self this OSD's id
   * @param tasks the mounted shards' owners
   * @param map the map this OSD has now
   * @param tls the client context of links to other OSDs, or null for plaintext
   * @param newerMap asked to fetch a map at least as new as the epoch given
   * @param registry where the PG metrics and the deep scrub counters go
   * @param tunables how deep scrub and recovery are paced
   * @param history the monitors' record of each PG's activations
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the schedule lasts as long as the timer
  public PgEngine(
      int self,
      ShardTasks tasks,
      ClusterMap map,
      SslContext tls,
      LongConsumer newerMap,
      MeterRegistry registry,
      PgTunables tunables,
      PgHistory history) {
    this.self = self;
    this.tasks = tasks;
    this.metrics = new PgMetrics(registry);
    this.view = MapView.of(map, self);
    this.shards = new ShardPgs[tasks.shardCount()];
    this.services =
        new PgServices(
            self,
            () -> view,
            new PeerLinks(tls, epoch -> maybeNewer(epoch, newerMap)),
            timer,
            newerMap,
            metrics,
            shards.length,
            new ScrubSlot(
                registry, tunables.deepScrubInterval().toMillis(), tunables.scrubBytesPerSecond()),
            new RecoverySlots(tunables.recoveryMaxActive(), tunables.recoverySleep().toMillis()),
            history);
    long interval = tunables.deepScrubInterval().toMillis();
    if (interval > 0) {
      // Often enough that a PG is scrubbed soon after it is due, rarely enough to cost nothing.
      long tick = Math.clamp(interval / 8, 1000, 60_000);
      timer.scheduleWithFixedDelay(this::scrubDue, tick, tick, TimeUnit.MILLISECONDS);
    }
    timer.scheduleWithFixedDelay(
        this::removeStrays, STRAY_TICK_SECONDS, STRAY_TICK_SECONDS, TimeUnit.SECONDS);
  }

  /** How often each shard looks for stray PG copies to remove. */
  static final long STRAY_TICK_SECONDS = 5;

  /** Each shard looks for its stray PG copies ({@link StrayRemoval}). */
  private void removeStrays() {
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      tasks.run(
          shard,
          store -> {
            try {
              pgs(shard, store).strays.tick();
            } catch (RuntimeException e) {
              LOG.log(Level.WARNING, "stray PG copies on shard " + shard, e);
            }
          });
    }
  }

  /** The deep scrub schedule: with the OSD's slot free, the shards in turn start a due PG's. */
  private void scrubDue() {
    if (services.scrubs().tryTake()) {
      scrubDueFrom(0, System.currentTimeMillis());
    }
  }

  private void scrubDueFrom(int shard, long now) {
    if (shard == shards.length) {
      services.scrubs().release();
      return;
    }
    boolean ran =
        tasks.run(
            shard,
            store -> {
              boolean started;
              try {
                started = pgs(shard, store).scrub.startDue(now);
              } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "deep scrub schedule on shard " + shard, e);
                started = false;
              }
              if (!started) {
                scrubDueFrom(shard + 1, now);
              }
            });
    if (!ran) {
      services.scrubs().release();
    }
  }

  private void maybeNewer(long epoch, LongConsumer newerMap) {
    if (epoch > view.epoch()) {
      newerMap.accept(epoch);
    }
  }

  /**
   * A new map (or the first one, again, at start): every shard moves its loaded PGs to it and opens
   * the PGs it is now the primary of, which peer at once.
   */
  public void onMap(ClusterMap map) {
    if (map.epoch() < view.epoch()) {
      return;
    }
    boolean poolGone = false;
    if (map.epoch() > view.epoch()) {
      poolGone = !map.pools().keySet().containsAll(view.map().pools().keySet());
      view = MapView.of(map, self);
    }
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      tasks.run(shard, store -> pgs(shard, store).advanceAll());
    }
    if (poolGone) {
      removeStrays(); // a deleted pool's objects go now, not at the next tick
    }
  }

  /** The shard's PGs; on its owner thread only. */
  private ShardPgs pgs(int shard, ShardStore store) {
    ShardPgs pgs = shards[shard];
    if (pgs == null) {
      pgs = new ShardPgs(shard, store, tasks.executor(shard), services);
      shards[shard] = pgs;
    }
    return pgs;
  }

  @Override
  public long epoch() {
    return view.epoch();
  }

  @Override
  public String poolName(int pool) {
    PoolInfo info = view.map().pools().get(pool);
    return info == null ? null : info.name();
  }

  /**
   * Runs {@code work} with the PG's state on its shard's thread; failures complete {@code done}.
   */
  private <T> CompletionStage<T> onPg(
      PgId pg, CompletableFuture<T> done, BiConsumer<ShardPgs, Pg> work) {
    int shard = PgMeta.shardOf(pg, shards.length);
    boolean started =
        tasks.run(
            shard,
            store -> {
              try {
                ShardPgs pgs = pgs(shard, store);
                work.accept(pgs, pgs.pg(pg));
              } catch (RuntimeException e) {
                done.completeExceptionally(e);
              }
            });
    if (!started) {
      done.completeExceptionally(new ObjectOpsException(Code.CLOSED, "the OSD is stopping"));
    }
    return done;
  }

  private PgId pgOf(ClientRequest r) {
    PgId pg = view.pgOf(r.pool(), r.name());
    if (pg == null) {
      throw new ObjectOpsException(
          Code.STALE_MAP, "no pool " + r.pool() + " in this OSD's map (epoch " + epoch() + ")");
    }
    return pg;
  }

  @Override
  public CompletionStage<Void> mutate(ClientRequest request, Mutation mutation) {
    PgId pg;
    try {
      pg = pgOf(request);
    } catch (ObjectOpsException e) {
      mutation.release();
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.primary.mutate(p, request, mutation, done));
  }

  @Override
  public CompletionStage<ByteBuf> read(ClientRequest request, long offset, int length) {
    CompletableFuture<ByteBuf> done = new CompletableFuture<>();
    return onPg(pgOf(request), done, (s, p) -> s.primary.read(p, request, offset, length, done));
  }

  @Override
  public CompletionStage<ObjectInfo> stat(ClientRequest request) {
    CompletableFuture<ObjectInfo> done = new CompletableFuture<>();
    return onPg(pgOf(request), done, (s, p) -> s.primary.stat(p, request, done));
  }

  @Override
  public CompletionStage<Allocation> allocation(ClientRequest request, long offset, long length) {
    CompletableFuture<Allocation> done = new CompletableFuture<>();
    return onPg(
        pgOf(request), done, (s, p) -> s.primary.allocation(p, request, offset, length, done));
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(ClientRequest request, String key) {
    CompletableFuture<ByteBuf> done = new CompletableFuture<>();
    return onPg(pgOf(request), done, (s, p) -> s.primary.getXattr(p, request, key, done));
  }

  @Override
  public CompletionStage<Void> replicate(RepOp op) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    return onPg(op.pg(), done, (s, p) -> s.replica.replicate(p, op, done));
  }

  @Override
  public CompletionStage<PgPeerInfo> pgQuery(long epoch, PgId pg) {
    if (epoch > view.epoch()) {
      services.newerMap().accept(epoch);
    }
    CompletableFuture<PgPeerInfo> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.replica.query(p, done));
  }

  @Override
  public CompletionStage<Void> activate(long epoch, PgId pg) {
    if (epoch > view.epoch()) {
      services.newerMap().accept(epoch);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.activation.member(p, epoch, done));
  }

  @Override
  public CompletionStage<Void> strayQuery(long epoch, PgId pg, int osd) {
    if (epoch > view.epoch()) {
      services.newerMap().accept(epoch);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.strays.answer(p, osd, done));
  }

  @Override
  public CompletionStage<LogCopy> getLog(long epoch, PgId pg) {
    CompletableFuture<LogCopy> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.member.getLog(p, done));
  }

  @Override
  public CompletionStage<Void> push(long epoch, PgId pg, ObjectChunk chunk) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicBoolean taken = new AtomicBoolean();
    CompletionStage<Void> stage =
        onPg(
            pg,
            done,
            (s, p) -> {
              taken.set(true); // from here the member releases the chunk, whatever happens
              s.member.push(p, epoch, chunk, done);
            });
    // Read done first: a member that took the chunk set taken before it could complete done.
    if (done.isCompletedExceptionally() && !taken.get()) {
      chunk.release(); // refused before the member took it
    }
    return stage;
  }

  @Override
  public CompletionStage<ObjectChunk> pull(long epoch, PgId pg, String name, long offset, int max) {
    CompletableFuture<ObjectChunk> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.member.pull(p, name, offset, max, done));
  }

  @Override
  public CompletionStage<Void> logSync(long epoch, PgId pg, LogSync sync) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.member.logSync(p, sync, done));
  }

  @Override
  public CompletionStage<NamePage> listPg(long epoch, PgId pg, String after, int max) {
    CompletableFuture<NamePage> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.member.listPg(p, after, max, done));
  }

  @Override
  public CompletionStage<ObjectDigest> blockCrcs(long epoch, PgId pg, String name) {
    CompletableFuture<ObjectDigest> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.scrub.digest(p, epoch, name, done));
  }

  @Override
  public CompletionStage<ScrubReport> deepScrub(long epoch, PgId pg) {
    CompletableFuture<ScrubReport> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.scrub.onDemand(p, epoch, done));
  }

  /** PG states on this OSD, by name (the PGs it has loaded). Waits for every shard. */
  public Map<String, Integer> pgStates() throws InterruptedException {
    Map<String, Integer> all = new HashMap<>();
    CountDownLatch done = new CountDownLatch(1);
    onEveryShard(
        pgs -> {
          Map<String, Integer> mine = pgs.states();
          synchronized (all) {
            mine.forEach((k, v) -> all.merge(k, v, Integer::sum));
          }
        },
        done::countDown);
    done.await(5, TimeUnit.SECONDS);
    synchronized (all) {
      return new HashMap<>(all);
    }
  }

  /**
   * Runs {@code work} with each shard's PGs on that shard's thread, then {@code allDone} once every
   * shard has (or could not: it is stopping).
   */
  private void onEveryShard(java.util.function.Consumer<ShardPgs> work, Runnable allDone) {
    AtomicInteger left = new AtomicInteger(shards.length);
    Runnable shardDone =
        () -> {
          if (left.decrementAndGet() == 0) {
            allDone.run();
          }
        };
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      boolean ran =
          tasks.run(
              shard,
              store -> {
                try {
                  work.accept(pgs(shard, store));
                } finally {
                  shardDone.run();
                }
              });
      if (!ran) {
        shardDone.run();
      }
    }
  }

  /**
   * The newest finished report of the PGs this OSD is primary of, for the next heartbeat; starts
   * gathering the one after it (each shard adds its PGs on its own thread, so a report is at most
   * one heartbeat old and the heartbeat never waits for a busy shard). Also updates the PG metrics.
   */
  public PgReport report() {
    if (gathering.compareAndSet(false, true)) {
      gather();
    }
    return latestReport;
  }

  private void gather() {
    long epoch = view.epoch();
    List<PgStat> stats = new ArrayList<>();
    Map<String, Integer> counts = new HashMap<>();
    onEveryShard(
        pgs -> {
          synchronized (stats) {
            pgs.collect(stats, counts);
          }
        },
        () -> {
          synchronized (stats) {
            latestReport =
                new PgReport(epoch, metrics.recoveredObjects(), metrics.recoveredBytes(), stats);
            metrics.states(counts);
          }
          gathering.set(false);
        });
  }

  @Override
  public void close() {
    timer.shutdownNow();
    services.peers().close();
  }
}
