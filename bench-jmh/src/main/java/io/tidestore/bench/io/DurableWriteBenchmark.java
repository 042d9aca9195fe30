package io.tidestore.bench.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Durable writes to one O_DIRECT file on a real disk: io_uring (one thread, {@code depth} writes in
 * flight) against its strongest JDK peer, a FileChannel with O_DIRECT driven by {@code depth}
 * threads each doing write + force(false). Read the {@code writes} counter (writes/s); run all of
 * it, at depths 1 and 32, with {@link DurableWriteRun} so the peers share one run and one file.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DurableWriteBenchmark {
  static final long FILE_SIZE = Long.getLong("tidestore.bench.fileSize", 1L << 30);
  static final int SMALL = 4096;
  static final int LARGE = 128 * 1024;

  /** io_uring, 4 KiB random writes at offsets spread over the file. */
  @State(Scope.Thread)
  public static class UringRandom4k {
    @Param({"1", "32"})
    public int depth;

    UringWriter writer;

    @Setup(Level.Trial)
    public void open() throws IOException {
      BenchFile.prepare(BenchFile.path(), FILE_SIZE);
      writer = new UringWriter(depth, SMALL, FILE_SIZE, false);
      writer.open(BenchFile.path());
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      writer.close();
    }
  }

  /** io_uring, 128 KiB writes walking the file sequentially. */
  @State(Scope.Thread)
  public static class UringSequential128k {
    @Param({"1", "32"})
    public int depth;

    UringWriter writer;

    @Setup(Level.Trial)
    public void open() throws IOException {
      BenchFile.prepare(BenchFile.path(), FILE_SIZE);
      writer = new UringWriter(depth, LARGE, FILE_SIZE, true);
      writer.open(BenchFile.path());
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      writer.close();
    }
  }

  /** The shared O_DIRECT channel of the JDK peer, 4 KiB blocks. */
  @State(Scope.Benchmark)
  public static class Channel4k {
    ChannelWriter writer;

    @Setup(Level.Trial)
    public void open() throws IOException {
      BenchFile.prepare(BenchFile.path(), FILE_SIZE);
      writer = new ChannelWriter(BenchFile.path(), SMALL, FILE_SIZE);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      writer.close();
    }
  }

  /** The shared O_DIRECT channel of the JDK peer, 128 KiB blocks. */
  @State(Scope.Benchmark)
  public static class Channel128k {
    ChannelWriter writer;

    @Setup(Level.Trial)
    public void open() throws IOException {
      BenchFile.prepare(BenchFile.path(), FILE_SIZE);
      writer = new ChannelWriter(BenchFile.path(), LARGE, FILE_SIZE);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      writer.close();
    }
  }

  /** Per JDK-peer thread: an aligned buffer and a random stream. */
  @State(Scope.Thread)
  public static class ChannelThread {
    ByteBuffer buffer;
    final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());

    @Setup(Level.Trial)
    public void allocate() {
      buffer = ByteBuffer.allocateDirect(LARGE + 4096).alignedSlice(4096);
      while (buffer.hasRemaining()) {
        buffer.put((byte) 7);
      }
    }
  }

  @Benchmark
  public void uringRandom4kDurable(UringRandom4k s, WriteCounters c) throws IOException {
    s.writer.durableStep(c);
  }

  @Benchmark
  public void uringRandom4kWriteThenSync(UringRandom4k s, WriteCounters c) throws IOException {
    s.writer.durableStep(c, true);
  }

  @Benchmark
  public void uringRandom4kGroupCommit(UringRandom4k s, WriteCounters c) throws IOException {
    s.writer.groupCommitStep(c);
  }

  @Benchmark
  public void uringRandom4kBatchThenSync(UringRandom4k s, WriteCounters c) throws IOException {
    s.writer.batchThenSyncStep(c);
  }

  @Benchmark
  public void uringSequential128kDurable(UringSequential128k s, WriteCounters c)
      throws IOException {
    s.writer.durableStep(c);
  }

  @Benchmark
  public void uringSequential128kWriteThenSync(UringSequential128k s, WriteCounters c)
      throws IOException {
    s.writer.durableStep(c, true);
  }

  @Benchmark
  public void uringSequential128kGroupCommit(UringSequential128k s, WriteCounters c)
      throws IOException {
    s.writer.groupCommitStep(c);
  }

  @Benchmark
  public void channelRandom4kDurable(Channel4k s, ChannelThread t, WriteCounters c)
      throws IOException {
    s.writer.durableWrite(t.buffer, s.writer.randomOffset(t.random));
    c.writes++;
  }

  @Benchmark
  public void channelSequential128kDurable(Channel128k s, ChannelThread t, WriteCounters c)
      throws IOException {
    s.writer.durableWrite(t.buffer, s.writer.nextSequentialOffset());
    c.writes++;
  }
}
