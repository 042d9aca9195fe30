package io.tidestore.osd.pg;

import io.netty.buffer.ByteBuf;
import io.netty.handler.ssl.SslContext;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.ClusterOps;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.osd.store.ShardTasks;
import io.tidestore.store.api.ShardStore;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;

/**
 * A cluster OSD's PGs (issue 17, stop 3): serves protocol v2 by routing each request to the shard
 * holding its PG ({@link PgMeta#shardOf}), where that shard's {@link ShardPgs} runs it on the
 * shard's thread: as primary ({@link Primary}), as replica ({@link Replica}), or peering ({@link
 * Peering}). Follows the map: every new epoch moves the loaded PGs to it.
 */
public final class PgEngine implements ClusterOps, AutoCloseable {
  private final ShardTasks tasks;
  private final PgServices services;
  private final ShardPgs[] shards;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("tidestore-pg-timer").unstarted(r));
  private volatile MapView view;

  /**
   * @param self this OSD's id
   * @param tasks the mounted shards' owners
   * @param map the map this OSD has now
   * @param tls the client context of links to other OSDs, or null for plaintext
   * @param newerMap asked to fetch a map at least as new as the epoch given
   */
  public PgEngine(
      int self, ShardTasks tasks, ClusterMap map, SslContext tls, LongConsumer newerMap) {
    this.tasks = tasks;
    this.view = MapView.of(map);
    this.shards = new ShardPgs[tasks.shardCount()];
    this.services =
        new PgServices(
            self,
            () -> view,
            new PeerLinks(tls, epoch -> maybeNewer(epoch, newerMap)),
            timer,
            newerMap);
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      tasks.run(shard, store -> pgs(shard, store).advanceAll()); // peers the PGs this OSD leads
    }
  }

  private void maybeNewer(long epoch, LongConsumer newerMap) {
    if (epoch > view.epoch()) {
      newerMap.accept(epoch);
    }
  }

  /** A new map: every shard moves its loaded PGs to it. */
  public void onMap(ClusterMap map) {
    if (map.epoch() <= view.epoch()) {
      return;
    }
    view = MapView.of(map);
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      tasks.run(shard, store -> pgs(shard, store).advanceAll());
    }
  }

  /** The shard's PGs; on its owner thread only. */
  private ShardPgs pgs(int shard, ShardStore store) {
    ShardPgs pgs = shards[shard];
    if (pgs == null) {
      pgs = new ShardPgs(shard, shards.length, store, tasks.executor(shard), services);
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
  public CompletionStage<LogCopy> getLog(long epoch, PgId pg) {
    CompletableFuture<LogCopy> done = new CompletableFuture<>();
    return onPg(pg, done, (s, p) -> s.member.getLog(p, done));
  }

  @Override
  public CompletionStage<Void> push(long epoch, PgId pg, ObjectChunk chunk) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletionStage<Void> stage = onPg(pg, done, (s, p) -> s.member.push(p, chunk, done));
    if (done.isCompletedExceptionally()) {
      chunk.release(); // refused before the member took it (which releases it when applied)
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

  /** PG states on this OSD, by name (the PGs it has loaded). Waits for every shard. */
  public Map<String, Integer> pgStates() throws InterruptedException {
    Map<String, Integer> all = new HashMap<>();
    CountDownLatch left = new CountDownLatch(shards.length);
    for (int s = 0; s < shards.length; s++) {
      int shard = s;
      boolean ran =
          tasks.run(
              shard,
              store -> {
                Map<String, Integer> mine = pgs(shard, store).states();
                synchronized (all) {
                  mine.forEach((k, v) -> all.merge(k, v, Integer::sum));
                }
                left.countDown();
              });
      if (!ran) {
        left.countDown();
      }
    }
    left.await(5, TimeUnit.SECONDS);
    synchronized (all) {
      return new HashMap<>(all);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    services.peers().close();
  }
}
