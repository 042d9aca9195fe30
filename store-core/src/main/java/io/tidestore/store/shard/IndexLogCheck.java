package io.tidestore.store.shard;

import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.util.BitSet;
import java.util.function.Consumer;

/**
 * The in-memory half of checking the index against the log, shared by the offline check ({@link
 * ShardFsck}) and the online scrub ({@link Scrubber}): every mapped block lies inside the segments,
 * no two blocks share a location, no free segment holds a mapped block, and each segment's live
 * count (what the log's records left live there, kept as records apply) equals what the index maps
 * into it. Reading the blocks and their crc32c is the caller's half. Runs on the thread that owns
 * the index, in one go.
 */
final class IndexLogCheck {
  /** Receives every mapped block that passed the location checks. */
  @FunctionalInterface
  interface MappedBlock {
    void block(ObjectEntry object, int block, long entry, int segment);
  }

  private IndexLogCheck() {}

  /**
   * Checks {@code index} against {@code segments}, telling {@code fault} each finding and {@code
   * mapped} each block that lies in a segment; returns the number of mapped blocks.
   */
  static long check(
      ObjectIndex index,
      SegmentTable segments,
      Superblock sb,
      Consumer<String> fault,
      MappedBlock mapped) {
    int[] live = new int[segments.count()];
    BitSet owned = new BitSet();
    long firstLocation = sb.firstSegmentOffset() / Blocks.SIZE;
    long blocks = 0;
    for (ObjectEntry e : index.entries()) {
      if (!e.exists) {
        continue;
      }
      for (int b = 0; b < e.blockSlots(); b++) {
        long entry = e.block(b);
        if (BlockEntry.isHole(entry)) {
          continue;
        }
        blocks++;
        int loc = BlockEntry.location(entry);
        long rel = Integer.toUnsignedLong(loc) - firstLocation;
        int seg = segments.segmentOf(loc);
        if (rel < 0 || seg < 0 || seg >= segments.count()) {
          fault.accept(
              "object "
                  + e.id
                  + " block "
                  + b
                  + " maps outside the segments: "
                  + Integer.toUnsignedLong(loc));
          continue;
        }
        if (owned.get((int) rel)) {
          fault.accept(
              "location "
                  + Integer.toUnsignedLong(loc)
                  + " is mapped twice (again by object "
                  + e.id
                  + ")");
        }
        owned.set((int) rel);
        live[seg]++;
        mapped.block(e, b, entry, seg);
      }
    }
    for (int s = 0; s < segments.count(); s++) {
      if (live[s] != segments.live(s)) {
        fault.accept(
            "segment "
                + s
                + " accounts "
                + segments.live(s)
                + " live blocks, index maps "
                + live[s]);
      }
      if (segments.state(s) == SegmentTable.FREE && live[s] > 0) {
        fault.accept("segment " + s + " is free but holds " + live[s] + " mapped blocks");
      }
    }
    return blocks;
  }
}
