package io.tidestore.osd.store;

import io.netty.util.concurrent.EventExecutor;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.cache.ExtentCache;
import io.tidestore.store.io.IoBackend;
import java.util.List;
import java.util.function.IntFunction;

/**
 * What owns mounted shards and runs their ops, the same to the router and the admin in both
 * engines: a reactor and the shards it owns ({@link ReactorShards}), or one classic-engine store
 * shard with its PG lock ({@link ClassicShard}). Every method but {@link #executor()}, {@link
 * #name()}, {@link #maxWriteBytes()}, {@link #queueBackend()}, {@link #close()} and the
 * acknowledgement pair is for a caller {@link #executor()} says is in the owner.
 */
interface ShardOwner {
  /** For messages: the reactor's name, or the PG's. */
  String name();

  /**
   * Where work on the owned shards runs: the reactor's loop, or the PG's op queue (a worker under
   * the PG lock). Its {@code inEventLoop()} says whether the caller may touch the shards now.
   */
  EventExecutor executor();

  /**
   * Whether a completion delivered now runs its acknowledgement on another thread ({@link
   * #acknowledge}): the classic engine's finisher, when the commit thread delivered it. False in
   * the reactor engine, whose callers then build no task.
   */
  boolean acksOnFinisher();

  /** Runs {@code ack} on the finisher (see {@link #acksOnFinisher()}). */
  void acknowledge(Runnable ack);

  /** The backend of the owner's I/O queue. */
  IoBackend queueBackend();

  /** The largest single write every owned shard accepts. Any thread. */
  long maxWriteBytes();

  /** Shard {@code id}, which this owner holds. */
  ShardStore shard(int id);

  /** The owned shards' caches, in the order of the shards; empty without caches. Any thread. */
  List<ExtentCache> caches();

  /** Shard {@code id}'s cache. Any thread (the cache checks its own calls). */
  ExtentCache cache(int id);

  /** Puts each owned shard's stats at its index in {@code out}. */
  void statsInto(ShardStats[] out);

  /** Sets every owned shard's scrub schedule. */
  void scrubSchedule(long intervalNanos, long bytesPerSecond);

  /** Starts a scrub pass on every owned shard. */
  void startScrub(List<Integer> started, List<Integer> alreadyRunning);

  /** Gives each owned shard's journal its observer. */
  void observeJournals(IntFunction<JournalObserver> observers);

  /** Closes the owned shards (each waits for its pending ops) and their queue. Any thread. */
  void close();
}
