package io.tidestore.osd.store;

import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.cache.PolicyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * The mounted shards' administration: switching every extent cache's policy at run time, and the
 * shards' caches, stats and journal observers for the metrics. Each touches a shard only on the
 * reactor that owns it; every method may be called from any thread.
 */
public final class StoreAdmin {
  private final MountedShards shards;

  StoreAdmin(MountedShards shards) {
    this.shards = shards;
  }

  /**
   * Switches every shard's extent cache to {@code config}, each on its own reactor; every cached
   * extent stays valid. Fails when the daemon runs without caches.
   */
  CompletableFuture<Void> switchCachePolicy(PolicyConfig config) {
    List<CompletableFuture<?>> switched = new ArrayList<>();
    for (int shard = 0; shard < shards.shardCount(); shard++) {
      ShardOwner owner = shards.ownerOf(shard);
      if (owner == null || owner.caches().isEmpty()) {
        continue;
      }
      ExtentCache cache = owner.cache(shard);
      switched.add(cache.requestPolicy(config));
      // Applied at the cache's next use anyway; this makes an idle shard switch now.
      owner.executor().execute(cache::applyPendingPolicy);
    }
    if (switched.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("this daemon runs without an extent cache (--cache-size 0)"));
    }
    return CompletableFuture.allOf(switched.toArray(CompletableFuture[]::new));
  }

  /**
   * The admin endpoint's switch: {@code policy} is {@code lru} or {@code 2q}; waits until every
   * shard has applied it and answers the JSON the endpoint returns.
   *
   * @throws IllegalArgumentException for another policy name
   * @throws ExecutionException when a shard failed to switch, or the daemon runs without caches
   */
  public String switchCachePolicy(String policy)
      throws InterruptedException, ExecutionException, TimeoutException {
    PolicyConfig config =
        switch (policy) {
          case "lru" -> PolicyConfig.lru();
          case "2q" -> PolicyConfig.daemonDefault();
          default ->
              throw new IllegalArgumentException("policy must be lru or 2q, got '" + policy + "'");
        };
    switchCachePolicy(config).get(30, TimeUnit.SECONDS);
    return "{\"policy\":\"" + policy + "\",\"shards\":" + caches().size() + "}";
  }

  /** Every shard's extent cache, indexed by shard; empty when the daemon runs without one. */
  public List<ExtentCache> caches() {
    for (int shard = 0; shard < shards.shardCount(); shard++) {
      ShardOwner owner = shards.ownerOf(shard);
      if (owner == null || owner.caches().isEmpty()) {
        return List.of();
      }
    }
    List<ExtentCache> all = new ArrayList<>();
    for (int shard = 0; shard < shards.shardCount(); shard++) {
      all.add(shards.ownerOf(shard).cache(shard));
    }
    return all;
  }

  /**
   * Every shard's stats, indexed by shard, each snapshot taken on the reactor owning the shard (the
   * only thread that may read its counters).
   */
  public CompletableFuture<ShardStats[]> shardStats() {
    ShardStats[] out = new ShardStats[shards.shardCount()];
    List<CompletableFuture<Void>> taken = new ArrayList<>();
    for (ShardOwner reactor : shards.shardOwners()) {
      taken.add(CompletableFuture.runAsync(() -> reactor.statsInto(out), reactor.executor()));
    }
    return CompletableFuture.allOf(taken.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  /**
   * Sets every shard's scrub: a pass every {@code intervalNanos} (0: on demand only), reading
   * {@code bytesPerSecond} over the whole daemon, split evenly over the shards. Blocks until set.
   */
  public void scrubSchedule(long intervalNanos, long bytesPerSecond) {
    long perShard = Math.max(4096, bytesPerSecond / Math.max(1, shards.shardCount()));
    List<CompletableFuture<Void>> set = new ArrayList<>();
    for (ShardOwner reactor : shards.shardOwners()) {
      set.add(
          CompletableFuture.runAsync(
              () -> reactor.scrubSchedule(intervalNanos, perShard), reactor.executor()));
    }
    CompletableFuture.allOf(set.toArray(CompletableFuture[]::new)).join();
  }

  /**
   * The admin endpoint's {@code POST /scrub}: starts a pass on every shard not already scrubbing;
   * answers {@code {"started":[shards],"already_running":[shards]}}.
   */
  public String startScrub() {
    List<Integer> started = new ArrayList<>();
    List<Integer> running = new ArrayList<>();
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (ShardOwner reactor : shards.shardOwners()) {
      List<Integer> s = new ArrayList<>();
      List<Integer> r = new ArrayList<>();
      calls.add(
          CompletableFuture.runAsync(() -> reactor.startScrub(s, r), reactor.executor())
              .thenRun(
                  () -> {
                    synchronized (started) {
                      started.addAll(s);
                      running.addAll(r);
                    }
                  }));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
    synchronized (started) {
      return "{\"started\":"
          + started.stream().sorted().toList().toString().replace(" ", "")
          + ",\"already_running\":"
          + running.stream().sorted().toList().toString().replace(" ", "")
          + "}";
    }
  }

  /**
   * The shards' part of {@code /status}: {@code "health"} and {@code "shards"} members (see {@link
   * ShardStatusJson}), from stats taken on the reactors within {@code timeoutSeconds}.
   */
  public String statusMembers(long timeoutSeconds) {
    try {
      return ShardStatusJson.members(shardStats().get(timeoutSeconds, TimeUnit.SECONDS));
    } catch (ExecutionException | TimeoutException e) {
      return "\"health\":\"unknown\",\"shards_error\":\"" + e.toString().replace("\"", "'") + "\"";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "\"health\":\"unknown\"";
    }
  }

  /** Gives every shard's journal its observer, each on its reactor; blocks until done. */
  public void observeJournals(IntFunction<JournalObserver> observers) {
    List<CompletableFuture<Void>> set = new ArrayList<>();
    for (ShardOwner reactor : shards.shardOwners()) {
      set.add(
          CompletableFuture.runAsync(() -> reactor.observeJournals(observers), reactor.executor()));
    }
    CompletableFuture.allOf(set.toArray(CompletableFuture[]::new)).join();
  }
}
