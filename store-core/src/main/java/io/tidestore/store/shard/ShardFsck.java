package io.tidestore.store.shard;

import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Offline check of one shard of an unmounted store: the superblocks, the newest checkpoint, the
 * journal after it (every record's header and data checksums, as replay does), every block the
 * index maps (read and crc32c-verified), that no two blocks share a location or sit outside the
 * segments, and that the live-block accounting per segment matches the index. The caller holds the
 * data directory's lock (the engine's fsck does). Runs on the calling thread, which owns {@code
 * queue}.
 */
public final class ShardFsck {
  private final Consumer<String> out;
  private int faults;

  private ShardFsck(Consumer<String> out) {
    this.out = out;
  }

  /** Checks the shard in {@code space}, printing findings; returns the fault count. */
  public static int check(ShardSpace space, IoQueue queue, Consumer<String> out)
      throws IOException {
    ShardFsck f = new ShardFsck(out);
    f.shard(space, queue);
    return f.faults;
  }

  private void fault(int shard, String what) {
    faults++;
    out.accept("  FAULT shard " + shard + ": " + what);
  }

  private void shard(ShardSpace space, IoQueue queue) throws IOException {
    int shard = space.shard();
    try (OpenedSpace opened = OpenedSpace.open(queue, space, false)) {
      IoFile file = opened.file;
      ShardMount.Loaded l;
      try {
        l = ShardMount.load(new SyncIo(queue), opened, shard);
      } catch (IOException e) {
        fault(shard, e.getMessage());
        return;
      }
      Superblock sb = l.superblock();
      out.accept(
          "shard "
              + shard
              + ": "
              + sb.segmentCount()
              + " segments of "
              + sb.segmentBytes()
              + " bytes, epoch "
              + sb.epoch()
              + ", "
              + l.checkpointNote()
              + ", replay of "
              + l.replay().records()
              + " records stopped at "
              + l.replay().describeStop());
      if (!l.superblockNote().isEmpty()) {
        fault(shard, "a superblock copy is damaged: " + l.superblockNote());
      }
      try {
        checkBlocks(shard, file, sb, l, queue);
      } finally {
        l.index().close();
      }
    }
  }

  /** Reads every segment holding mapped blocks and verifies each block against the index. */
  private void checkBlocks(
      int shard, IoFile file, Superblock sb, ShardMount.Loaded l, IoQueue queue)
      throws IOException {
    SegmentTable segs = l.segments();
    Map<Integer, List<long[]>> bySegment = new HashMap<>();
    long blocks =
        IndexLogCheck.check(
            l.index(),
            segs,
            sb,
            what -> fault(shard, what),
            (e, b, entry, seg) ->
                bySegment
                    .computeIfAbsent(seg, k -> new ArrayList<>())
                    .add(new long[] {e.id, b, entry}));
    int free = 0;
    for (int s = 0; s < segs.count(); s++) {
      if (segs.state(s) == SegmentTable.FREE) {
        free++;
      }
    }
    CRC32C crc = new CRC32C();
    SyncIo io = new SyncIo(queue);
    long verified = 0;
    long records = 0;
    try (Arena arena = Arena.ofShared()) {
      MemorySegment buf = arena.allocate(sb.segmentBytes(), Blocks.SIZE);
      for (var e : bySegment.entrySet()) {
        int seg = e.getKey();
        io.read(file, sb.segmentOffset(seg), buf);
        int first = segs.firstLocation(seg);
        for (long[] m : e.getValue()) {
          int loc = BlockEntry.location(m[2]);
          long at = (long) (loc - first) * Blocks.SIZE;
          int actual = Blocks.crc(crc, buf, at, Blocks.SIZE);
          if (actual != BlockEntry.crc(m[2])) {
            fault(
                shard,
                "object "
                    + m[0]
                    + " block "
                    + m[1]
                    + " at location "
                    + loc
                    + " fails its crc32c (data corrupt)");
          }
          verified++;
        }
        long pos = 0;
        while (pos + Blocks.SIZE <= sb.segmentBytes()) {
          RecordHeader h = RecordHeader.peek(buf.asSlice(pos), (int) (sb.segmentBytes() - pos));
          if (h == null || !h.belongsTo(sb) || !h.verify(buf.asSlice(pos), crc)) {
            break;
          }
          records++;
          pos += h.length();
        }
      }
    }
    out.accept(
        "shard "
            + shard
            + ": "
            + l.index().objectCount()
            + " objects, "
            + blocks
            + " mapped blocks, "
            + verified
            + " verified, "
            + records
            + " record headers verified in live segments, "
            + free
            + " of "
            + segs.count()
            + " segments free");
  }
}
