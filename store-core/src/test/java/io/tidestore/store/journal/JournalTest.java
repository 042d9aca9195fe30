package io.tidestore.store.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaWriter;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import io.tidestore.store.testing.ManualIoQueue;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The journal's group-commit rules (numbered as in {@link Journal}'s Javadoc), its in-order
 * application and its failure rule, each observed on a queue whose writes complete only when the
 * test completes them.
 */
class JournalTest implements Journal.Listener {
  private static final int SEGMENT_BYTES = 128 << 10;
  private static final long AGE_NANOS = 5_000_000L;

  private final Arena arena = Arena.ofShared();
  private final ManualIoQueue queue = new ManualIoQueue(64);
  private final IoFile file = queue.open(Path.of("shard-0"), IoFile.Mode.READ_WRITE);
  private final Superblock sb =
      new Superblock(0, 1, 8192 + 16L * SEGMENT_BYTES, SEGMENT_BYTES, 16, 8192, 0, 1, 1);
  private final SegmentTable segments = new SegmentTable(sb);

  /** Records applied, in order: [seq, ops]. */
  private final List<long[]> applied = new ArrayList<>();

  /** Acknowledgements, in order: the op number, or -number for a failure. */
  private final List<Integer> acks = new ArrayList<>();

  private IoOpException journalFailure;
  private int nextOp;
  private Journal journal;

  @AfterEach
  void close() {
    arena.close();
  }

  @Override
  public void apply(Batch batch) {
    applied.add(new long[] {batch.seq(), batch.ops});
  }

  @Override
  public void journalFailed(IoOpException cause) {
    journalFailure = cause;
  }

  private static StoreConfig config(int maxOps, int inFlight, JournalFlush flush) {
    return new StoreConfig(
        64 << 10, maxOps, AGE_NANOS, inFlight, 1 << 30, CleanerPolicy.GREEDY, 6, 2, flush, 0);
  }

  private Journal journal(StoreConfig config) {
    journal =
        new Journal(
            0, sb, config, queue, file, segments, arena, this, 0, 1, -1, 0, new SyncRound());
    return journal;
  }

  /** Stages one metadata-only operation (a truncate); returns its number. */
  private int stageTruncate() {
    int op = nextOp++;
    Batch b = journal.reserve(DeltaDescriptor.TRUNCATE_LENGTH, 0, false);
    assertNotNull(b, "no room for op " + op);
    journal.deltas().truncate(1, op);
    stagedAck(b, op);
    return op;
  }

  /** Stages a write of {@code blocks} data blocks; returns its number. */
  private int stageWrite(int blocks) {
    int op = nextOp++;
    Batch b = journal.reserve(DeltaWriter.writeLength(blocks), blocks, false);
    assertNotNull(b, "no room for op " + op);
    journal.deltas().write(1, 0, blocks, (long) blocks * Blocks.SIZE);
    for (int i = 0; i < blocks; i++) {
      b.addDataBlock();
      journal.deltas().crc(0);
    }
    stagedAck(b, op);
    return op;
  }

  private void stagedAck(Batch b, int op) {
    journal.staged(b);
    b.onApplied((v, e) -> acks.add(e == null ? op : -op - 1));
  }

  private List<ManualIoQueue.Op> writes() {
    return queue.submitted(IoOpException.Op.WRITE_DURABLE);
  }

  /** Completes the {@code i}th outstanding record write. */
  private void completeWrite(int i) {
    queue.complete(writes().get(i));
  }

  @Test
  void rule1EveryPassGoesOutAsOneRecord() {
    journal(config(64, 2, JournalFlush.RECORD_DSYNC));
    stageTruncate();
    stageTruncate();
    stageTruncate();
    queue.submit();
    assertEquals(0, writes().size(), "written before the end of the pass");
    journal.endOfPass();
    assertEquals(1, writes().size(), "one record for the pass");
    completeWrite(0);
    assertEquals(1, applied.size());
    assertEquals(3, applied.get(0)[1], "the pass's three ops in one record");
    assertEquals(List.of(0, 1, 2), acks);
    assertTrue(journal.idle());
  }

  @Test
  void rule1WithEveryWriteSlotBusyTheBatchGrowsAndGoesWhenOneCompletes() {
    journal(config(64, 2, JournalFlush.RECORD_DSYNC));
    stageTruncate();
    journal.endOfPass();
    stageTruncate();
    journal.endOfPass();
    assertEquals(2, writes().size());
    stageTruncate();
    journal.endOfPass();
    stageTruncate();
    journal.endOfPass();
    assertEquals(2, writes().size(), "sealed a third record while two were in flight");
    completeWrite(0);
    assertEquals(2, writes().size(), "the grown batch did not go when a slot freed");
    completeWrite(0);
    completeWrite(0);
    assertEquals(3, applied.size());
    assertEquals(2, applied.get(2)[1], "the two ops staged meanwhile share one record");
    assertEquals(List.of(0, 1, 2, 3), acks);
  }

  @Test
  void rule2AFullBatchIsSealedBeforeTheOpThatWouldOverflowIt() {
    journal(config(4, 4, JournalFlush.RECORD_DSYNC));
    for (int i = 0; i < 5; i++) {
      stageTruncate();
    }
    journal.endOfPass();
    assertEquals(2, writes().size());
    completeWrite(0);
    completeWrite(0);
    assertEquals(4, applied.get(0)[1], "maxBatchOps");
    assertEquals(1, applied.get(1)[1]);

    // maxBatchBytes is 64 KiB: 16 data blocks.
    applied.clear();
    stageWrite(8);
    stageWrite(8);
    stageWrite(8);
    journal.endOfPass();
    assertEquals(2, writes().size());
    assertEquals(16L * Blocks.SIZE + 4096, writes().get(0).length(), "16 blocks + 1 meta block");
    completeWrite(0);
    completeWrite(0);
    assertEquals(2, applied.get(0)[1]);
    assertEquals(1, applied.get(1)[1]);
  }

  @Test
  void rule2ABatchIsSealedAtTheSegmentsEndRatherThanMovedWholeToTheNext() {
    journal(config(64, 8, JournalFlush.RECORD_DSYNC));
    // A segment holds 32 blocks; two records of 14 data blocks + 1 metadata block leave 2.
    stageWrite(14);
    journal.endOfPass();
    stageWrite(14);
    journal.endOfPass();
    // In one pass: a 1-block write fits the 2 blocks left; a second one would not, so the batch is
    // sealed there and the second write starts the next segment.
    stageWrite(1);
    stageWrite(1);
    journal.endOfPass();
    List<ManualIoQueue.Op> w = writes();
    assertEquals(4, w.size());
    assertEquals(sb.segmentOffset(0) + 15L * Blocks.SIZE, w.get(1).offset());
    assertEquals(sb.segmentOffset(0) + 30L * Blocks.SIZE, w.get(2).offset(), "rest of segment 0");
    assertEquals(2L * Blocks.SIZE, w.get(2).length());
    assertEquals(sb.segmentOffset(1), w.get(3).offset(), "the next write starts segment 1");
  }

  @Test
  void rule3AnOldBatchIsSealedAtTheNextCallIntoTheShard() {
    journal(config(64, 2, JournalFlush.RECORD_DSYNC));
    stageTruncate();
    long now = System.nanoTime();
    journal.checkAge(now);
    assertEquals(0, writes().size(), "sealed before it was old");
    journal.checkAge(now + AGE_NANOS);
    assertEquals(1, writes().size(), "an op that waited maxBatchAgeNanos was not written");
  }

  @Test
  void rule3DoesNotSealWhenTheRecordCouldNotBeWrittenNow() {
    journal(config(64, 1, JournalFlush.RECORD_DSYNC));
    stageTruncate();
    journal.endOfPass();
    stageTruncate();
    journal.checkAge(System.nanoTime() + AGE_NANOS);
    assertEquals(1, writes().size());
    completeWrite(0);
    assertEquals(1, writes().size(), "the aged batch goes once the slot is free");
  }

  @Test
  void rule4AtMostMaxBatchesInFlightAndApplicationInSequenceOrder() {
    journal(config(1, 2, JournalFlush.RECORD_DSYNC));
    for (int i = 0; i < 4; i++) {
      stageTruncate(); // maxBatchOps 1: each op seals the one before, three records sealed
    }
    journal.endOfPass();
    assertEquals(2, writes().size(), "more than maxBatchesInFlight written at once");
    queue.complete(writes().get(1)); // record 2 completes first
    assertEquals(0, applied.size(), "record 2 applied before record 1");
    assertEquals(2, writes().size(), "record 3 did not take the freed slot");
    completeWrite(0); // record 1
    assertEquals(List.of(1L, 2L), applied.stream().map(a -> a[0]).toList());
    assertEquals(List.of(0, 1), acks);
    while (!writes().isEmpty()) {
      completeWrite(0);
    }
    assertEquals(List.of(0, 1, 2, 3), acks);
  }

  @Test
  void aFailedWriteFailsItsRecordAndEveryLaterOneAndStopsTheJournal() {
    journal(config(1, 2, JournalFlush.RECORD_DSYNC));
    stageTruncate();
    stageTruncate();
    journal.endOfPass();
    queue.complete(writes().get(1));
    queue.fail(writes().get(0), 5);
    assertEquals(0, applied.size(), "a record behind a failed one was applied");
    assertEquals(List.of(-1, -2), acks);
    assertNotNull(journalFailure);
    assertEquals(StoreException.Code.IO_ERROR, journal.failure().code());
    assertNull(journal.reserve(DeltaDescriptor.TRUNCATE_LENGTH, 0, false));
  }

  @Test
  void sharedFdatasyncCoversOnlyRecordsWhoseWritesCompletedAndOneRunsAtATime() {
    journal(config(64, 2, JournalFlush.SHARED_FDATASYNC));
    stageTruncate();
    journal.endOfPass();
    stageTruncate();
    journal.endOfPass();
    List<ManualIoQueue.Op> w = queue.submitted(IoOpException.Op.WRITE);
    assertEquals(2, w.size(), "plain writes in shared-fdatasync mode");
    queue.complete(w.get(0));
    assertEquals(0, queue.submitted(IoOpException.Op.SYNC).size(), "synced with a write in flight");
    queue.complete(w.get(1));
    assertEquals(1, queue.submitted(IoOpException.Op.SYNC).size());
    assertEquals(0, applied.size(), "applied before the sync");
    stageTruncate();
    journal.endOfPass();
    assertEquals(0, queue.submitted(IoOpException.Op.WRITE).size(), "written while a sync runs");
    queue.complete(queue.submitted(IoOpException.Op.SYNC).get(0));
    assertEquals(2, applied.size(), "one sync made both records durable");
    assertEquals(1, journal.syncs());
    List<ManualIoQueue.Op> third = queue.submitted(IoOpException.Op.WRITE);
    assertEquals(1, third.size(), "the record staged during the sync goes after it");
    queue.complete(third.get(0));
    queue.complete(queue.submitted(IoOpException.Op.SYNC).get(0));
    assertEquals(List.of(0, 1, 2), acks);
  }
}
