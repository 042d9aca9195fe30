package io.tidestore.store.shard;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.segment.SegmentTable;

/**
 * Which closed segment the cleaner reclaims next ({@link CleanerPolicy}), and how many segments
 * cleaning could free at most (the full-store answer). Owner thread only; no state.
 */
final class VictimPicker {
  private VictimPicker() {}

  /**
   * Dead blocks a victim must hold at least when space is low: relocating a nearly full segment
   * costs as much space (live blocks plus the metadata blocks of their records) as it frees, so it
   * would never net a block, and the segments it fills would qualify again: the cleaner would never
   * stop. A sixteenth (at least 4 blocks) is well above the metadata of relocation records.
   */
  static int minDeadBlocks(int blocksPerSegment) {
    return Math.max(4, blocksPerSegment / 16);
  }

  /**
   * Dead blocks a victim must hold for background cleaning (space not yet low): only segments that
   * are cheap to reclaim, so cleaning ahead of need costs little write amplification.
   */
  static int minDeadBlocksInBackground(int blocksPerSegment) {
    return Math.max(4, blocksPerSegment / 4);
  }

  static boolean eligible(SegmentTable segs, int s) {
    return eligible(segs, s, minDeadBlocks(segs.blocksPerSegment()));
  }

  private static boolean eligible(SegmentTable segs, int s, int minDead) {
    int live = segs.live(s);
    return segs.state(s) == SegmentTable.USED
        && live > 0
        && live <= segs.blocksPerSegment() - minDead;
  }

  /**
   * The best segment with at least {@code minDead} dead blocks under {@code policy}, skipping
   * {@code busy} ones (with relocations in flight); -1 when there is none. {@code nowSeq} ages
   * segments for cost-benefit.
   */
  static int pick(
      SegmentTable segs,
      CleanerPolicy policy,
      long nowSeq,
      int minDead,
      int[] busy,
      int busyCount) {
    int perSegment = segs.blocksPerSegment();
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int s = 0; s < segs.count(); s++) {
      if (!eligible(segs, s, minDead) || contains(busy, busyCount, s)) {
        continue;
      }
      int live = segs.live(s);
      double u = (double) live / perSegment;
      double score =
          policy == CleanerPolicy.GREEDY
              ? -live
              : (1 - u) * (nowSeq - segs.maxSeq(s) + 1) / (1 + u);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
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
   * Segments that could be allocatable once the cleaner compacted every eligible segment and a
   * checkpoint released them: the free ones, the closed ones without a live block, and the dead
   * blocks of eligible segments plus the room left in the open one, in whole segments. Relocation
   * metadata (one block per 256 relocations at most, rounded up generously) is charged against the
   * dead blocks.
   */
  static long reachableFreeSegments(SegmentTable segs, int headRoomBlocks) {
    int perSegment = segs.blocksPerSegment();
    long free = 0;
    long dead = headRoomBlocks;
    long relocated = 0;
    for (int s = 0; s < segs.count(); s++) {
      byte state = segs.state(s);
      if (state == SegmentTable.FREE) {
        free++;
      } else if (state == SegmentTable.USED && segs.live(s) == 0) {
        free++;
      } else if (eligible(segs, s)) {
        dead += perSegment - segs.live(s);
        relocated += segs.live(s);
      }
    }
    long metaBlocks = relocated / 128 + 1;
    return free + Math.max(0, dead - metaBlocks) / perSegment;
  }
}
