package io.tidestore.store.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;
import org.junit.jupiter.api.Test;

/** Segment states, live-block accounting, allocation around reads, and reclaim's two rules. */
class SegmentTableTest {
  private static final int SEGMENT_BYTES = 64 << 10;
  private final Superblock sb =
      new Superblock(0, 1, 8192 + 4L * SEGMENT_BYTES, SEGMENT_BYTES, 4, 8192, 0, 1, 1);

  @Test
  void locationsMapToTheirSegment() {
    SegmentTable t = new SegmentTable(sb);
    assertEquals(16, t.blocksPerSegment());
    assertEquals(2, t.firstLocation(0), "segments start after the two superblock copies");
    assertEquals(0, t.segmentOf(2));
    assertEquals(0, t.segmentOf(17));
    assertEquals(1, t.segmentOf(18));
    assertEquals(3, t.segmentOf(t.firstLocation(3) + 15));
    assertEquals(sb.segmentOffset(1) / Blocks.SIZE, t.firstLocation(1));
  }

  @Test
  void allocationTakesTheLowestFreeSegmentWithNoReadInFlight() {
    SegmentTable t = new SegmentTable(sb);
    t.readStarted(t.firstLocation(0) + 3); // a read against free segment 0 (a stale location)
    assertEquals(3, t.allocatable());
    assertEquals(4, t.freeCount());
    assertEquals(1, t.allocate(), "allocated under a read in flight");
    assertEquals(SegmentTable.OPEN, t.state(1));
    t.readDone(t.firstLocation(0) + 3);
    assertEquals(0, t.allocate());
    t.state(2, SegmentTable.USED);
    assertEquals(3, t.allocate());
    assertEquals(-1, t.allocate());
  }

  @Test
  void liveCountsFollowAddAndRelease() {
    SegmentTable t = new SegmentTable(sb);
    t.addLive(t.firstLocation(1));
    t.addLive(t.firstLocation(1) + 1);
    t.addLive(t.firstLocation(2));
    t.releaseLive(t.firstLocation(1));
    assertEquals(1, t.live(1));
    assertEquals(1, t.live(2));
    assertEquals(2, t.totalLive());
  }

  @Test
  void reclaimFreesOnlyClosedEmptySegmentsACheckpointCovers() {
    SegmentTable t = new SegmentTable(sb);
    for (int s = 0; s < 4; s++) {
      assertEquals(s, t.allocate());
      t.noteRecord(s, 10L * (s + 1));
    }
    t.state(0, SegmentTable.USED); // empty, records up to 10
    t.state(1, SegmentTable.USED); // empty, records up to 20
    t.state(2, SegmentTable.USED); // still holds a live block
    t.addLive(t.firstLocation(2));
    // segment 3 stays OPEN: the journal writes it
    assertEquals(1, t.reclaim(15), "freed a segment whose records the checkpoint does not cover");
    assertEquals(SegmentTable.FREE, t.state(0));
    assertEquals(SegmentTable.USED, t.state(1));
    assertEquals(1, t.reclaim(100));
    assertEquals(SegmentTable.USED, t.state(2), "freed a segment with a live block");
    assertEquals(SegmentTable.OPEN, t.state(3), "freed the open segment");
    assertEquals(0, t.allocate());
    assertEquals(0, t.maxSeq(0), "a reallocated segment starts with no records");
  }
}
