package io.tidestore.osd;

/**
 * Which threading engine serves ops, and the classic engine's thread counts (docs/engines.md).
 *
 * @param kind reactor (run to completion on pinned reactors) or classic (messenger threads, a
 *     sharded op queue served by worker threads, a commit thread, a finisher, I/O threads owning
 *     the rings)
 * @param msgrThreads classic: unpinned event loops that only decode requests and enqueue ops, and
 *     write replies (Ceph's ms_async_op_threads)
 * @param opShards classic: queues of the sharded op queue; a store shard's ops go to queue shard
 *     mod opShards (Ceph's osd_op_num_shards)
 * @param opThreadsPerShard classic: worker threads serving each queue (Ceph's
 *     osd_op_num_threads_per_shard)
 * @param ioThreads classic: threads that own the io_uring rings, submit and reap them (BlueStore's
 *     aio thread)
 */
public record EngineSettings(
    EngineKind kind, int msgrThreads, int opShards, int opThreadsPerShard, int ioThreads) {

  /** Ceph's ms_async_op_threads. */
  public static final int DEFAULT_MSGR_THREADS = 3;

  /** Ceph's osd_op_num_shards for an SSD-backed OSD. */
  public static final int DEFAULT_OP_SHARDS = 8;

  /** Ceph's osd_op_num_threads_per_shard for an SSD-backed OSD. */
  public static final int DEFAULT_OP_THREADS_PER_SHARD = 2;

  /** One, as a classic OSD has one BlueStore aio thread reaping its I/O. */
  public static final int DEFAULT_IO_THREADS = 1;

  /** The engines. */
  public enum EngineKind {
    REACTOR,
    CLASSIC;

    /** The name on the command line, in logs, /status and the metric label. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static EngineKind parse(String value) {
      for (EngineKind kind : values()) {
        if (kind.label().equals(value)) {
          return kind;
        }
      }
      throw new IllegalArgumentException("engine must be reactor or classic, got '" + value + "'");
    }
  }

  public EngineSettings {
    if (msgrThreads < 1 || msgrThreads > 256) {
      throw new IllegalArgumentException("msgr threads must be in 1..256, got " + msgrThreads);
    }
    if (opShards < 1 || opShards > 1024) {
      throw new IllegalArgumentException("op shards must be in 1..1024, got " + opShards);
    }
    if (opThreadsPerShard < 1 || opThreadsPerShard > 64) {
      throw new IllegalArgumentException(
          "op threads per shard must be in 1..64, got " + opThreadsPerShard);
    }
    if (ioThreads < 1 || ioThreads > 256) {
      throw new IllegalArgumentException("io threads must be in 1..256, got " + ioThreads);
    }
  }

  /** The reactor engine with the classic defaults kept for a switch. */
  public static EngineSettings reactor() {
    return new EngineSettings(
        EngineKind.REACTOR,
        DEFAULT_MSGR_THREADS,
        DEFAULT_OP_SHARDS,
        DEFAULT_OP_THREADS_PER_SHARD,
        DEFAULT_IO_THREADS);
  }
}
