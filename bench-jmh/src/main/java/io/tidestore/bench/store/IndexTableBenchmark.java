package io.tidestore.bench.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Issue 19 asks the off-heap object index to be built on chronicle-bytes unless it is more than 10%
 * slower than MemorySegment on lookup, insert and remove. This runs the index's shape, an
 * open-addressing id table of 32-byte entries ({@link OffHeapIdTable}), with 1M objects in 2M slots
 * (64 MiB, far beyond the CPU caches, as a shard's index is), over the two kinds of memory:
 *
 * <ul>
 *   <li>{@code segment}: an {@link Arena} allocation read with {@code MemorySegment.get/set}
 *       (bounds and liveness checked);
 *   <li>{@code chronicle}: a chronicle-bytes {@code BytesStore.nativeStoreWithFixedCapacity} read
 *       with {@code readLong/writeLong}.
 * </ul>
 *
 * {@code lookup} reads the size of a random existing object; {@code removeInsert} removes a random
 * existing object and inserts it again (one remove and one insert per op, the table staying at 1M).
 * Each benchmark runs in its own fork, so each table class is the only one loaded there.
 *
 * <pre>bin/jmh IndexTableBenchmark -f 1 -wi 3 -i 5 -w 2s -r 2s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class IndexTableBenchmark {
  static final long SLOTS = 1L << 21;
  static final long OBJECTS = 1_000_000;
  static final int BATCH = 1024;

  @Param({"segment", "segmentConfined", "chronicle"})
  public String memory;

  private OffHeapIdTable table;
  private long cursor = 1;

  @Setup(Level.Trial)
  public void setUp() {
    table =
        switch (memory) {
          case "segment" -> new SegmentTable(SLOTS, Arena.ofShared());
          case "segmentConfined" -> new SegmentTable(SLOTS, Arena.ofConfined());
          default -> new ChronicleTable(SLOTS);
        };
    for (long id = 1; id <= OBJECTS; id++) {
      table.put(id, id * 4096, id);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (table.count() != OBJECTS) {
      throw new IllegalStateException("table lost entries: " + table.count());
    }
    table.close();
  }

  /** A random-looking existing id, the same sequence for both memories. */
  private static long id(long x) {
    return 1 + Long.remainderUnsigned(x * 0x9E3779B97F4A7C15L, OBJECTS);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long lookup() {
    long sum = 0;
    long c = cursor;
    for (int i = 0; i < BATCH; i++, c++) {
      sum += table.size(id(c));
    }
    cursor = c;
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long removeInsert() {
    long c = cursor;
    for (int i = 0; i < BATCH; i++, c++) {
      long id = id(c);
      if (!table.remove(id)) {
        throw new IllegalStateException("missing id " + id);
      }
      table.put(id, id * 4096, id);
    }
    cursor = c;
    return table.count();
  }

  /** The table over an Arena allocation. */
  static final class SegmentTable extends OffHeapIdTable {
    private final Arena arena;
    private final MemorySegment memory;

    SegmentTable(long slots, Arena arena) {
      super(slots);
      this.arena = arena;
      memory = arena.allocate(slots * SLOT_BYTES, 4096);
      memory.fill((byte) 0);
    }

    @Override
    long get(long offset) {
      return memory.get(ValueLayout.JAVA_LONG, offset);
    }

    @Override
    void set(long offset, long value) {
      memory.set(ValueLayout.JAVA_LONG, offset, value);
    }

    @Override
    public void close() {
      arena.close();
    }
  }

  /** The table over chronicle-bytes native memory. */
  static final class ChronicleTable extends OffHeapIdTable {
    private final BytesStore<?, Void> memory;

    ChronicleTable(long slots) {
      super(slots);
      memory = BytesStore.nativeStoreWithFixedCapacity(slots * SLOT_BYTES);
      memory.zeroOut(0, slots * SLOT_BYTES);
    }

    @Override
    long get(long offset) {
      return memory.readLong(offset);
    }

    @Override
    void set(long offset, long value) {
      memory.writeLong(offset, value);
    }

    @Override
    public void close() {
      memory.releaseLast();
    }
  }
}
