package io.tidestore.bench.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's setup, steps and teardown, run for real on a small file (not a measurement): what
 * a JMH run does, minus the timing.
 */
class DurableWriteBenchmarkTest {
  private static final long SIZE = 8L << 20;
  private Path file;

  @BeforeEach
  void setUp() throws IOException {
    Path dir =
        Files.createTempDirectory(
            Path.of(System.getProperty("tidestore.test.dir", "/var/tmp")), "tidestore-bench-");
    file = dir.resolve("data");
    BenchFile.prepare(file, SIZE);
  }

  @AfterEach
  void tearDown() throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(file.getParent());
  }

  @Test
  void preparedFileHasItsSize() throws IOException {
    assertEquals(SIZE, Files.size(file));
    BenchFile.prepare(file, SIZE); // idempotent
    assertEquals(SIZE, Files.size(file));
  }

  @Test
  void uringWriterRunsEveryStepAndClosesCleanly() throws IOException {
    for (boolean sequential : new boolean[] {false, true}) {
      UringWriter writer = new UringWriter(8, 4096, SIZE, sequential);
      writer.open(file);
      assertTrue(writer.describe().startsWith("IO_URING"), writer.describe());
      WriteCounters counters = new WriteCounters();
      stepUntil(writer, counters, false, 20);
      stepUntil(writer, counters, true, 40);
      long before = counters.writes;
      writer.batchThenSyncStep(counters);
      assertTrue(counters.writes >= before + 8, "the batch counts its writes");
      writer.close(); // waits for the writes still in flight
      writer.close(); // idempotent
    }
  }

  /**
   * Steps until {@code target} writes have completed. A step may complete none: its wait returns on
   * the first CQE, and a linked write counts only once its fdatasync's CQE came too. A writer that
   * stops completing writes fails here after the deadline.
   */
  private static void stepUntil(
      UringWriter writer, WriteCounters counters, boolean linked, long target) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (counters.writes < target) {
      assertTrue(
          System.nanoTime() - deadline < 0,
          (linked ? "linked" : "durable") + " writes stopped completing at " + counters.writes);
      writer.durableStep(counters, linked);
    }
  }

  @Test
  void groupCommitAcknowledgesWritesOnceTheirSyncCompleted() throws IOException {
    UringWriter writer = new UringWriter(8, 4096, SIZE, false);
    writer.open(file);
    WriteCounters group = new WriteCounters();
    // A write counts only once the fdatasync covering it completed; a step may count none.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (group.writes < 8) {
      assertTrue(
          System.nanoTime() - deadline < 0,
          "group commit acknowledged only " + group.writes + " synced writes");
      writer.groupCommitStep(group);
    }
    writer.close();
  }

  @Test
  void channelWriterWritesDurablyAtAlignedOffsets() throws IOException {
    try (ChannelWriter writer = new ChannelWriter(file, 128 * 1024, SIZE)) {
      DurableWriteBenchmark.ChannelThread thread = new DurableWriteBenchmark.ChannelThread();
      thread.allocate();
      for (int i = 0; i < 100; i++) {
        long offset = writer.nextSequentialOffset();
        assertEquals(0, offset % (128 * 1024));
        assertTrue(offset + 128 * 1024 <= SIZE);
        writer.durableWrite(thread.buffer, offset);
      }
      long random = writer.randomOffset(thread.random);
      assertEquals(0, random % (128 * 1024));
    }
  }
}
