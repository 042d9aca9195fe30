package io.tidestore.store.memory;

/**
 * A reservation would take the daemon past its {@code --memory-limit}: the typed error the daemon
 * reports (and refuses to start or to grow with) instead of being OOM-killed.
 */
public final class MemoryBudgetExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final MemoryUse use;
  private final long requested;
  private final long limit;
  private final long reserved;

  MemoryBudgetExceededException(
      String what, MemoryUse use, long requested, long limit, long reserved) {
    super(
        "memory limit exceeded: "
            + what
            + " ("
            + use
            + ") needs "
            + MemoryBudget.formatBytes(requested)
            + " but only "
            + MemoryBudget.formatBytes(Math.max(0, limit - reserved))
            + " of the "
            + MemoryBudget.formatBytes(limit)
            + " --memory-limit is free ("
            + MemoryBudget.formatBytes(reserved)
            + " reserved); raise --memory-limit or lower --cache-size");
    this.use = use;
    this.requested = requested;
    this.limit = limit;
    this.reserved = reserved;
  }

  public MemoryUse use() {
    return use;
  }

  public long requestedBytes() {
    return requested;
  }

  public long limitBytes() {
    return limit;
  }

  /** Bytes already reserved when the request was refused. */
  public long reservedBytes() {
    return reserved;
  }
}
