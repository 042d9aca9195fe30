package io.tidestore.store.segment;

import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;

/**
 * The state of a shard's segments: which are free, which one the journal writes, how many live
 * blocks each holds (the cleaner's input and fsck's free-space check), the newest record sequence
 * in each, and reads in flight against each (a segment is not rewritten under a read).
 *
 * <p>A segment becomes free only when it holds no live block and every record in it is covered by a
 * durable index checkpoint: replay starts at the checkpoint and never needs it again. Owner thread
 * only.
 */
public final class SegmentTable {
  /** Never written since mkfs or reclaimed. */
  public static final byte FREE = 0;

  /** The journal's current segment. */
  public static final byte OPEN = 1;

  /** Written and closed. */
  public static final byte USED = 2;

  private final int count;
  private final int blocksPerSegment;
  private final long firstBlock;
  private final int[] live;
  private final long[] maxSeq;
  private final int[] reads;
  private final byte[] state;

  /** Sum of {@link #live}, kept up to date so the capacity check on every write is O(1). */
  private long totalLive;

  public SegmentTable(Superblock sb) {
    this.count = sb.segmentCount();
    this.blocksPerSegment = sb.segmentBytes() / Blocks.SIZE;
    this.firstBlock = sb.firstSegmentOffset() / Blocks.SIZE;
    this.live = new int[count];
    this.maxSeq = new long[count];
    this.reads = new int[count];
    this.state = new byte[count];
  }

  public int count() {
    return count;
  }

  public int blocksPerSegment() {
    return blocksPerSegment;
  }

  /** Segment holding block location {@code location}. */
  public int segmentOf(int location) {
    return (int) ((Integer.toUnsignedLong(location) - firstBlock) / blocksPerSegment);
  }

  /** First block location of {@code segment}. */
  public int firstLocation(int segment) {
    return (int) (firstBlock + (long) segment * blocksPerSegment);
  }

  public void addLive(int location) {
    live[segmentOf(location)]++;
    totalLive++;
  }

  public void releaseLive(int location) {
    live[segmentOf(location)]--;
    totalLive--;
  }

  public int live(int segment) {
    return live[segment];
  }

  public long totalLive() {
    return totalLive;
  }

  public byte state(int segment) {
    return state[segment];
  }

  public void state(int segment, byte s) {
    state[segment] = s;
  }

  public long maxSeq(int segment) {
    return maxSeq[segment];
  }

  public void noteRecord(int segment, long seq) {
    maxSeq[segment] = Math.max(maxSeq[segment], seq);
  }

  public void readStarted(int location) {
    reads[segmentOf(location)]++;
  }

  public void readDone(int location) {
    reads[segmentOf(location)]--;
  }

  /** Free segments that can be written now (no read in flight against them). */
  public int allocatable() {
    int n = 0;
    for (int s = 0; s < count; s++) {
      if (state[s] == FREE && reads[s] == 0) {
        n++;
      }
    }
    return n;
  }

  public int freeCount() {
    int n = 0;
    for (int s = 0; s < count; s++) {
      if (state[s] == FREE) {
        n++;
      }
    }
    return n;
  }

  /** Takes the lowest-numbered allocatable segment and marks it open; -1 when there is none. */
  public int allocate() {
    for (int s = 0; s < count; s++) {
      if (state[s] == FREE && reads[s] == 0) {
        state[s] = OPEN;
        maxSeq[s] = 0;
        return s;
      }
    }
    return -1;
  }

  /**
   * Frees every closed segment with no live block whose records are all at or below {@code
   * durableCheckpointSeq}; returns how many it freed.
   */
  public int reclaim(long durableCheckpointSeq) {
    int n = 0;
    for (int s = 0; s < count; s++) {
      if (state[s] == USED && live[s] == 0 && maxSeq[s] <= durableCheckpointSeq) {
        state[s] = FREE;
        n++;
      }
    }
    return n;
  }
}
