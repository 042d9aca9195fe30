package io.tidestore.store.index;

import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryBudgetExceededException;
import io.tidestore.store.memory.MemoryUse;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link MemoryUse#INDEX} reservation of one shard's object index. Its size is {@link
 * ObjectIndex#footprintBytes()}: the entries' heap estimate plus the native bytes of the block
 * maps' {@link IndexArena}; the reservation follows it up in {@link #STEP}s, so the budget is
 * touched once per MiB of growth, not per object. It also covers the native image a checkpoint
 * encodes the index into: the image is never larger than 9/8 of the index plus two blocks (every
 * encoded field is smaller than the memory holding it but a block entry, which can take 9 bytes in
 * the image for the 8 of its block map slot), so a checkpoint, which is what frees segments, is
 * never refused for memory. Owner thread only (the budget itself is thread-safe); {@link #close()}
 * at shard close gives every step back.
 */
public final class IndexMemory implements AutoCloseable {
  /** Reservation granularity. */
  public static final long STEP = 1 << 20;

  /**
   * Headroom a new object must find under the reservation: its entry, key, name, map nodes and a
   * first block map, with room to spare (names are at most a few hundred bytes).
   */
  static final long NEW_OBJECT_BYTES = 4096;

  private static final System.Logger LOG = System.getLogger(IndexMemory.class.getName());

  private final MemoryBudget budget;
  private final String what;
  private final List<MemoryBudget.Reservation> steps = new ArrayList<>();
  private long reserved;
  private boolean refusing;

  /** Reserves the first step at once: an index that cannot get one cannot take a new object. */
  public IndexMemory(MemoryBudget budget, String what) {
    this.budget = budget;
    this.what = what;
    require(0);
  }

  /** An index's bytes plus the largest checkpoint image of an index of that size. */
  static long withImage(long indexBytes) {
    return indexBytes + indexBytes + indexBytes / 8 + 2 * 4096;
  }

  /**
   * Grows the reservation to cover an index of {@code indexBytes} and its checkpoint image; throws
   * when the budget refuses.
   */
  public void require(long indexBytes) {
    long bytes = withImage(indexBytes);
    while (reserved < bytes) {
      steps.add(budget.reserve(MemoryUse.INDEX, STEP, what));
      reserved += STEP;
    }
  }

  /** As {@link #require}, but false instead of an exception when the budget refuses. */
  public boolean cover(long indexBytes) {
    try {
      require(indexBytes);
      return true;
    } catch (MemoryBudgetExceededException e) {
      return false;
    }
  }

  /**
   * Says once, when it starts, that the index is past what the budget gives it (new objects are
   * refused from then on), and once when it fits again; {@code fits} is the latest answer.
   */
  void note(boolean fits, long footprint) {
    if (fits == refusing) {
      refusing = !fits;
      LOG.log(
          fits ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
          what
              + " is estimated at "
              + MemoryBudget.formatBytes(footprint)
              + " with "
              + MemoryBudget.formatBytes(reserved)
              + " reserved: "
              + (fits
                  ? "new objects are accepted again"
                  : "--memory-limit is reached, new objects are refused (NO_MEMORY) until"
                      + " objects are removed or the limit is raised; existing ones keep working"));
    }
  }

  /** Bytes reserved now. */
  public long reservedBytes() {
    return reserved;
  }

  @Override
  public void close() {
    steps.forEach(MemoryBudget.Reservation::close);
    steps.clear();
    reserved = 0;
  }
}
