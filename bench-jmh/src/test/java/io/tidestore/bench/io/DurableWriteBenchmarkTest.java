package io.tidestore.bench.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
      for (int i = 0; i < 20; i++) {
        writer.durableStep(counters);
      }
      assertTrue(counters.writes >= 20, "each step completes at least one write");
      for (int i = 0; i < 20; i++) {
        writer.durableStep(counters, true);
      }
      assertTrue(counters.writes >= 40, "each linked step completes at least one write");
      long before = counters.writes;
      writer.batchThenSyncStep(counters);
      assertTrue(counters.writes >= before + 8, "the batch counts its writes");
      writer.close(); // waits for the writes still in flight
      writer.close(); // idempotent
    }
  }

  @Test
  void groupCommitAcknowledgesWritesOnceTheirSyncCompleted() throws IOException {
    UringWriter writer = new UringWriter(8, 4096, SIZE, false);
    writer.open(file);
    WriteCounters group = new WriteCounters();
    for (int i = 0; i < 50; i++) {
      writer.groupCommitStep(group);
    }
    // 50 steps each reap at least one write; every write in a completed sync group counts.
    assertTrue(group.writes >= 8, "group commit acknowledges synced writes: " + group.writes);
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
