package io.tidestore.bench.cache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Does chronicle-bytes earn a place in the extent cache's off-heap code? The cache's off-heap work
 * is reading and writing 8-byte fields at computed offsets (an off-heap slot table probe: key at
 * slot*16, value at slot*16+8). Three accessors over 64 MiB, same run:
 *
 * <ul>
 *   <li>{@code segment}: {@code MemorySegment.get/set(JAVA_LONG, offset)} on an Arena allocation
 *       (the JDK's bounds- and liveness-checked access, what the cache uses);
 *   <li>{@code chronicleNative}: chronicle-bytes {@code BytesStore.nativeStoreWithFixedCapacity}
 *       with {@code readLong/writeLong(offset)};
 *   <li>{@code chroniclePointer}: a chronicle {@code PointerBytesStore} over the same Arena memory
 *       (how chronicle could view the cache's slabs).
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OffHeapAccessBenchmark {
  static final long BYTES = 64L << 20;
  static final long SLOTS = BYTES / 16;
  static final int BATCH = 1024;

  private Arena arena;
  private MemorySegment segment;
  private BytesStore<?, Void> chronicleNative;
  private PointerBytesStore chroniclePointer;
  private long cursor = 1;

  @Setup(Level.Trial)
  public void setUp() {
    arena = Arena.ofShared();
    segment = arena.allocate(BYTES, 4096);
    chronicleNative = BytesStore.nativeStoreWithFixedCapacity(BYTES);
    chroniclePointer = new PointerBytesStore();
    chroniclePointer.set(segment.address(), BYTES);
    for (long s = 0; s < SLOTS; s++) {
      segment.set(ValueLayout.JAVA_LONG, s * 16, s);
      chronicleNative.writeLong(s * 16, s);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    chroniclePointer.releaseLast();
    chronicleNative.releaseLast();
    arena.close();
  }

  /** Fibonacci-hashed slot sequence: random-looking, cheap, the same for every accessor. */
  private static long slot(long x) {
    return ((x * 0x9E3779B97F4A7C15L) >>> 20) & (SLOTS - 1);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long segment() {
    long sum = 0;
    long c = cursor;
    for (int i = 0; i < BATCH; i++, c++) {
      long off = slot(c) * 16;
      long k = segment.get(ValueLayout.JAVA_LONG, off);
      segment.set(ValueLayout.JAVA_LONG, off + 8, k + c);
      sum += k;
    }
    cursor = c;
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long chronicleNative() {
    long sum = 0;
    long c = cursor;
    for (int i = 0; i < BATCH; i++, c++) {
      long off = slot(c) * 16;
      long k = chronicleNative.readLong(off);
      chronicleNative.writeLong(off + 8, k + c);
      sum += k;
    }
    cursor = c;
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long chroniclePointer() {
    long sum = 0;
    long c = cursor;
    for (int i = 0; i < BATCH; i++, c++) {
      long off = slot(c) * 16;
      long k = chroniclePointer.readLong(off);
      chroniclePointer.writeLong(off + 8, k + c);
      sum += k;
    }
    cursor = c;
    return sum;
  }
}
