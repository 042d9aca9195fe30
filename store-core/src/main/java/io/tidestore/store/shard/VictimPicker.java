package io.tidestore.store.shard;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.segment.SegmentTable;

/**
 * Which closed segment the cleaner reclaims next ({@link CleanerPolicy}), and how many segments
 * cleaning could free at most (the full-store answer). Owner thread only.
 */
final class VictimPicker {
  private final SegmentTable segs;
  private final CleanerPolicy policy;
  private final int relocationsPerRecord;
  private final int metaBlocksPerRecord;

  VictimPicker(SegmentTable segs, StoreConfig config) {
    this.segs = segs;
    this.policy = config.cleanerPolicy();
    this.relocationsPerRecord =
        Math.max(1, Math.min(config.maxBatchBytes() / Blocks.SIZE, config.maxBatchOps()));
    this.metaBlocksPerRecord =
        RecordDescriptor.metaBlocks(relocationsPerRecord * DeltaDescriptor.RELOCATE_LENGTH);
  }

  /** Metadata blocks of the records that relocate {@code live} blocks. */
  int relocationMetaBlocks(int live) {
    return (live + relocationsPerRecord - 1) / relocationsPerRecord * metaBlocksPerRecord;
  }

  /**
   * Blocks of data users may store. Not counted: the cleaner's {@code reserveSegments} and the
   * segment the journal has open. The other segments count at the live blocks per segment that, if
   * every segment held exactly that many (overwrites spread evenly, the worst case for cleaning),
   * would still let cleaning net a whole segment beyond the reserve, after paying the relocation
   * records' metadata: a store filled to exactly this capacity keeps taking overwrites. Of that,
   * users get at most {@code 100 - overprovisionPercent} percent of the segments' blocks: the
   * headroom is what keeps victims mostly dead, and so cleaning cheap, when users fill what they
   * were given. Writes that would map more blocks fail with NO_SPACE.
   */
  long capacityBlocks(int reserveSegments, int overprovisionPercent) {
    int closed = segs.count() - reserveSegments - 1;
    int perSegment = segs.blocksPerSegment();
    int live = perSegment;
    while (live > 0
        && (netBlocks(perSegment, live) < MIN_NET
            || (long) closed * netBlocks(perSegment, live) < perSegment)) {
      live--;
    }
    long segmentsBlocks = (long) Math.max(0, closed) * perSegment;
    return Math.min(
        (long) Math.max(0, closed) * live, segmentsBlocks * (100 - overprovisionPercent) / 100);
  }

  private int netBlocks(int perSegment, int live) {
    return perSegment - live - relocationMetaBlocks(live);
  }

  /**
   * Blocks that cleaning segment {@code s} nets: its dead blocks minus the metadata of the records
   * relocating its live ones. A segment must net at least two to be a victim: relocating a nearly
   * full segment costs as much space as it frees, and the segments it fills would qualify again, so
   * the cleaner would never stop.
   */
  int netBlocks(int s) {
    return netBlocks(segs.blocksPerSegment(), segs.live(s));
  }

  private boolean eligible(int s, int minNet) {
    return segs.state(s) == SegmentTable.USED && segs.live(s) > 0 && netBlocks(s) >= minNet;
  }

  /** Net blocks any victim must yield: a real gain. */
  static final int MIN_NET = 2;

  /**
   * Net blocks a victim should yield when space is low: a sixteenth of a segment, so that a policy
   * that weighs age (cost-benefit) does not pick nearly full old segments while emptier ones exist;
   * the cleaner falls back to {@link #MIN_NET} when no segment qualifies.
   */
  int urgentMinNet() {
    return Math.max(MIN_NET, segs.blocksPerSegment() / 16);
  }

  /**
   * Net blocks a victim must yield for background cleaning (space not yet low): a quarter of a
   * segment, so cleaning ahead of need costs little write amplification.
   */
  int backgroundMinNet() {
    return Math.max(MIN_NET, segs.blocksPerSegment() / 4);
  }

  /**
   * The best segment netting at least {@code minNet} blocks under the policy, skipping the first
   * {@code busyCount} of {@code busy} (relocations in flight); -1 when there is none. {@code
   * nowSeq} ages segments for cost-benefit.
   */
  int pick(long nowSeq, int minNet, int[] busy, int busyCount) {
    int perSegment = segs.blocksPerSegment();
    // Cost-benefit weighs age relative to the oldest candidate, so that age at most doubles a
    // segment's benefit: on uniform overwrites (all segments alike) the choice stays near greedy's,
    // and only among segments of similar utilisation does the older (colder) one win.
    long maxAge = 1;
    if (policy == CleanerPolicy.COST_BENEFIT) {
      for (int s = 0; s < segs.count(); s++) {
        if (eligible(s, minNet) && !contains(busy, busyCount, s) && settled(s, nowSeq)) {
          maxAge = Math.max(maxAge, age(nowSeq, s));
        }
      }
    }
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int s = 0; s < segs.count(); s++) {
      if (!eligible(s, minNet) || contains(busy, busyCount, s) || !settled(s, nowSeq)) {
        continue;
      }
      int live = segs.live(s);
      double u = (double) live / perSegment;
      double score =
          policy == CleanerPolicy.GREEDY ? -live : costBenefit(u, age(nowSeq, s), maxAge);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  /**
   * Whether every record in segment {@code s} is applied ({@code nowSeq} is the next unapplied
   * sequence). A segment turns USED when the head moves on, while its last records may still be in
   * flight: their blocks are not live in the index yet, so cleaning it then would skip them as dead
   * and leave them live in a segment the cleaner thinks it emptied.
   */
  private boolean settled(int s, long nowSeq) {
    return segs.maxSeq(s) < nowSeq;
  }

  /**
   * Whether a segment that would qualify at {@code minNet} only waits for its last records to be
   * applied: then a better victim is a loop pass away, and taking a poor one now costs write
   * amplification for nothing.
   */
  boolean candidateSettling(long nowSeq, int minNet, int[] busy, int busyCount) {
    for (int s = 0; s < segs.count(); s++) {
      if (eligible(s, minNet) && !contains(busy, busyCount, s) && !settled(s, nowSeq)) {
        return true;
      }
    }
    return false;
  }

  /** Records since the segment's youngest block was written, at least one. */
  private long age(long nowSeq, int s) {
    return Math.max(1, nowSeq - segs.maxSeq(s) + 1);
  }

  /**
   * The LFS cost-benefit score {@code (1-u) * age / (1+u)} with the age normalised to {@code [1,
   * 2]} by the oldest candidate's ({@code maxAge}): benefit per cost, with age a bounded bonus.
   */
  static double costBenefit(double u, long age, long maxAge) {
    return (1 - u) * (1 + (double) age / maxAge) / (1 + u);
  }

  private static boolean contains(int[] a, int n, int v) {
    for (int i = 0; i < n; i++) {
      if (a[i] == v) {
        return true;
      }
    }
    return false;
  }

  /**
   * Segments that could be allocatable once the cleaner compacted every segment worth cleaning and
   * a checkpoint released them: the free ones, the closed ones without a live block, and the net
   * blocks of the others plus the room left in the open one, in whole segments.
   */
  long reachableFreeSegments(int headRoomBlocks) {
    long free = 0;
    long net = headRoomBlocks;
    for (int s = 0; s < segs.count(); s++) {
      byte state = segs.state(s);
      if (state == SegmentTable.FREE || (state == SegmentTable.USED && segs.live(s) == 0)) {
        free++;
      } else if (eligible(s, MIN_NET)) {
        net += netBlocks(s);
      }
    }
    return free + net / segs.blocksPerSegment();
  }
}
