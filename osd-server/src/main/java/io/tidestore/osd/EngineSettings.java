package io.tidestore.osd;

/**
 * Which threading engine serves ops, and the classic engine's thread counts (docs/engines.md).
 *
 * @param kind reactor (run to completion on pinned reactors) or classic (messenger threads, a
 *     sharded op queue served by worker threads, I/O threads owning the rings)
 * @param msgrThreads classic: unpinned event loops that only decode requests and encode replies
 * @param opThreads classic: op worker threads, each owning the store shards hashed to it; 0 means
 *     one per CPU this process may use (clamped to the shard count, like reactors)
 * @param ioThreads classic: threads that own the io_uring rings, submit and reap them
 */
public record EngineSettings(EngineKind kind, int msgrThreads, int opThreads, int ioThreads) {

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
    if (opThreads < 0 || opThreads > 1024) {
      throw new IllegalArgumentException(
          "op threads must be in 1..1024 (or 0 for one per CPU), got " + opThreads);
    }
    if (ioThreads < 1 || ioThreads > 256) {
      throw new IllegalArgumentException("io threads must be in 1..256, got " + ioThreads);
    }
  }

  /** The reactor engine with the classic defaults kept for a switch. */
  public static EngineSettings reactor() {
    return new EngineSettings(EngineKind.REACTOR, 2, 0, 1);
  }
}
