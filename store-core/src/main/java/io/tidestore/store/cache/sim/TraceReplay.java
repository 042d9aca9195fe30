package io.tidestore.store.cache.sim;

import io.tidestore.store.cache.EvictionHandler;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.ReplacementPolicy;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Replays block accesses through a {@link ReplacementPolicy}, the same code the extent cache runs:
 * no I/O, every access one 4 KiB block, a miss admits the block.
 *
 * <p>Not thread-safe; one replay per thread.
 */
public final class TraceReplay {
  private final ReplacementPolicy policy;
  private long accesses;
  private long hits;

  public TraceReplay(PolicyConfig config, long capacityBlocks) {
    this.policy = config.create(capacityBlocks, EvictionHandler.NONE);
  }

  /** One access; returns whether it hit. */
  public boolean access(long block) {
    accesses++;
    boolean hit = policy.access(block);
    if (hit) {
      hits++;
    }
    return hit;
  }

  /** Replays a whole trace file; returns its format. */
  public TraceFormat replay(Path trace) throws IOException {
    return TraceReader.read(trace, this::access);
  }

  /** Replays blocks held in memory. */
  public TraceReplay replay(long[] blocks) {
    for (long b : blocks) {
      access(b);
    }
    return this;
  }

  public long accesses() {
    return accesses;
  }

  public long hits() {
    return hits;
  }

  public double hitRatio() {
    return accesses == 0 ? 0.0 : (double) hits / accesses;
  }

  public ReplacementPolicy policy() {
    return policy;
  }
}
