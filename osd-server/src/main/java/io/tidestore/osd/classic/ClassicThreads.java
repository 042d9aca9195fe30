package io.tidestore.osd.classic;

import io.tidestore.osd.reactor.Reactors;
import io.tidestore.store.io.handoff.IoThread;

/**
 * The classic engine's threads behind the messengers (docs/engines.md): the sharded op queue
 * ({@code op-shards} {@link OpShard}s of {@code threads-per-shard} workers {@code osd-op-S-T}), the
 * {@link CommitThread}, the {@link Finisher}, and the {@code io-N} loops that own the rings. Store
 * shard (PG) {@code p} goes to op shard {@code p mod op-shards}, as Ceph hashes a PG to an op
 * shard, and its ring to I/O loop {@code p mod io-threads}.
 */
public final class ClassicThreads implements AutoCloseable {
  private final OpShard[] opShards;
  private final CommitThread commit;
  private final Finisher finisher;
  private final Reactors io;

  private ClassicThreads(OpShard[] opShards, CommitThread commit, Finisher finisher, Reactors io) {
    this.opShards = opShards;
    this.commit = commit;
    this.finisher = finisher;
    this.io = io;
  }

  /**
   * Starts the op workers, the commit thread and the finisher in front of the running {@code io}
   * loops (which the caller keeps and closes after this).
   */
  public static ClassicThreads start(int opShardCount, int threadsPerShard, Reactors io) {
    OpShard[] shards = new OpShard[opShardCount];
    for (int s = 0; s < opShardCount; s++) {
      shards[s] = new OpShard(s, threadsPerShard);
    }
    CommitThread commit = CommitThread.start();
    Finisher finisher = Finisher.start();
    for (OpShard shard : shards) {
      shard.start();
    }
    return new ClassicThreads(shards, commit, finisher, io);
  }

  /** A new placement group for store shard {@code storeShard}, on op shard shard mod count. */
  public PlacementGroup placementGroup(int storeShard) {
    return new PlacementGroup(storeShard, opShards[storeShard % opShards.length]);
  }

  /** The op shard store shard {@code storeShard}'s ops go to. */
  public int opShardOf(int storeShard) {
    return storeShard % opShards.length;
  }

  /** The I/O loop that owns store shard {@code storeShard}'s ring, as an {@link IoThread}. */
  public IoThread ioThreadFor(int storeShard) {
    return new EventLoopIoThread(io.get(storeShard % io.size()).loop());
  }

  public CommitThread commit() {
    return commit;
  }

  public Finisher finisher() {
    return finisher;
  }

  /** The threads, for the startup log: {@code [osd-op-0-0 ...] [commit] [finisher]}. */
  public String describe() {
    StringBuilder line = new StringBuilder("[");
    for (OpShard shard : opShards) {
      line.append(shard.index() == 0 ? "" : " ").append(shard.describe());
    }
    return line.append("] [")
        .append(commit.describe())
        .append("] [")
        .append(finisher.describe())
        .append(']')
        .toString();
  }

  /**
   * Stops the workers (after the ops they have queued), then the commit thread and the finisher
   * (after the acknowledgements it has queued). Close the mounted shards first.
   */
  @Override
  public void close() {
    for (OpShard shard : opShards) {
      shard.stop();
    }
    commit.close();
    finisher.close();
  }
}
