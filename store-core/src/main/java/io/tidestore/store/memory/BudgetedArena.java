package io.tidestore.store.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared {@link Arena} whose every allocation is first reserved from a {@link MemoryBudget}: a
 * refused reservation throws {@link MemoryBudgetExceededException} and allocates nothing, and
 * {@link #close()} frees the memory and gives every reservation back. This is how the store's
 * native buffers (journal batches, read buffers, cleaner and replay buffers, checkpoint images)
 * stay under {@code --memory-limit} without each site doing its own bookkeeping.
 *
 * <p>Counts the requested bytes; the JDK's alignment padding (under one alignment unit per
 * allocation, made once per buffer, not per I/O) is not counted. Thread-safe, like the shared arena
 * it wraps.
 */
public final class BudgetedArena implements Arena {
  private final MemoryBudget budget;
  private final MemoryUse use;
  private final String what;
  private final Arena inner = Arena.ofShared();
  private final List<MemoryBudget.Reservation> reservations = new ArrayList<>();

  private BudgetedArena(MemoryBudget budget, MemoryUse use, String what) {
    this.budget = budget;
    this.use = use;
    this.what = what;
  }

  /** A shared arena charging {@code use} of {@code budget}; {@code what} names it in errors. */
  public static BudgetedArena ofShared(MemoryBudget budget, MemoryUse use, String what) {
    return new BudgetedArena(budget, use, what);
  }

  /**
   * A new shared arena charging the same budget as {@code parent} (for buffers whose lifetime is
   * shorter than the parent's), or a plain shared arena when the parent is not budgeted.
   */
  public static Arena like(Arena parent, MemoryUse use, String what) {
    return parent instanceof BudgetedArena b
        ? new BudgetedArena(b.budget, use, what)
        : Arena.ofShared();
  }

  public MemoryBudget budget() {
    return budget;
  }

  @Override
  public synchronized MemorySegment allocate(long byteSize, long byteAlignment) {
    MemoryBudget.Reservation r = budget.reserve(use, byteSize, what);
    try {
      MemorySegment segment = inner.allocate(byteSize, byteAlignment);
      reservations.add(r);
      return segment;
    } catch (RuntimeException | Error e) {
      r.close();
      throw e;
    }
  }

  /** Bytes this arena holds against the budget. */
  public synchronized long reservedBytes() {
    long sum = 0;
    for (MemoryBudget.Reservation r : reservations) {
      sum += r.bytes();
    }
    return sum;
  }

  @Override
  public MemorySegment.Scope scope() {
    return inner.scope();
  }

  /** Frees the memory, then gives the reservations back. */
  @Override
  public synchronized void close() {
    inner.close();
    reservations.forEach(MemoryBudget.Reservation::close);
    reservations.clear();
  }
}
