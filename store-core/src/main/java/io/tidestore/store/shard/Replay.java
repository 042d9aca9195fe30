package io.tidestore.store.shard;

import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DataBlockVisitor;
import io.tidestore.store.record.DeltaReader;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * Replays the journal after a checkpoint: starting where the checkpoint says record {@code lastSeq
 * + 1} goes, it applies records whose sequence is exactly the next one and whose epoch is not lower
 * than the previous record's, following the chain into whichever segment starts with the next
 * sequence (the highest epoch wins, so a stale record from before a crash never beats the one
 * rewritten after it). It stops at the first record that is missing, torn or corrupt. Owner thread
 * only.
 */
final class Replay {
  /** Where the journal ends and how replay got there. */
  record Result(
      long lastSeq,
      long lastEpoch,
      int headSegment,
      long headOffset,
      long records,
      long bytes,
      String stop,
      int laterRecords) {
    /** The stop, worded for a log line or fsck's report. */
    String describeStop() {
      return laterRecords > 0
          ? stop
              + "; at least "
              + laterRecords
              + " later record(s) follow it: unless they were in flight together with it when"
              + " power was lost (acknowledgements go in sequence order, so then nothing"
              + " acknowledged is lost), the journal is damaged inside and writes acknowledged"
              + " after record "
              + lastSeq
              + " are lost"
          : stop;
    }
  }

  private final SyncIo io;
  private final IoFile file;
  private final Superblock sb;
  private final SegmentTable segments;
  private final RecordApplier applier;
  private final CRC32C crc = new CRC32C();
  private final MemorySegment record;
  private final MemorySegment head;
  private RecordHeader[] heads;

  Replay(
      SyncIo io,
      IoFile file,
      Superblock sb,
      SegmentTable segments,
      ObjectIndex index,
      Arena arena) {
    this.io = io;
    this.file = file;
    this.sb = sb;
    this.segments = segments;
    this.applier = RecordApplier.forReplay(index, segments);
    this.record = arena.allocate(sb.segmentBytes(), Blocks.SIZE);
    this.head = arena.allocate(Blocks.SIZE, Blocks.SIZE);
  }

  Result run(long lastSeq, long epoch, int segment, long offset) throws IOException {
    long expected = lastSeq + 1;
    long minEpoch = epoch;
    long records = 0;
    long bytes = 0;
    long segBytes = sb.segmentBytes();
    boolean jumped = false;
    long skip = 0; // past a bad record at the stop: where a later record could start
    String stop = "end of journal";
    while (true) {
      RecordHeader h = null;
      if (segment >= 0 && offset + Blocks.SIZE <= segBytes) {
        readFully(sb.segmentOffset(segment) + offset, head);
        h = RecordHeader.peek(head, (int) (segBytes - offset));
      }
      if (h != null && h.belongsTo(sb) && h.seq() == expected && h.epoch() >= minEpoch) {
        MemorySegment rec = record.asSlice(0, h.length());
        readFully(sb.segmentOffset(segment) + offset, rec);
        String bad = verify(rec, h);
        if (bad != null) {
          stop =
              "record "
                  + expected
                  + " at segment "
                  + segment
                  + " offset "
                  + offset
                  + " is torn or corrupt ("
                  + bad
                  + ")";
          skip = h.length();
          break;
        }
        int location = (int) ((sb.segmentOffset(segment) + offset) >>> Blocks.SHIFT);
        try {
          applier.apply(rec, h, location);
        } catch (CorruptRecordException | IllegalStateException e) {
          stop = "record " + expected + " does not apply: " + e.getMessage();
          skip = h.length();
          break;
        }
        segments.noteRecord(segment, h.seq());
        if (segments.state(segment) == SegmentTable.FREE) {
          segments.state(segment, SegmentTable.USED);
        }
        records++;
        bytes += h.length();
        minEpoch = h.epoch();
        expected++;
        offset += h.length();
        jumped = false;
        continue;
      }
      if (jumped) {
        stop = "segment starting with record " + expected + " does not verify";
        break;
      }
      int next = segmentStartingWith(expected, minEpoch);
      if (next < 0) {
        break;
      }
      segment = next;
      offset = 0;
      jumped = true;
    }
    int later = laterRecords(segment, offset + skip, expected - 1, minEpoch);
    return new Result(expected - 1, minEpoch, segment, offset, records, bytes, stop, later);
  }

  /**
   * A lower bound on the records newer than {@code lastSeq} that replay did not reach: those in the
   * rest of the segment it stopped in (one read of it, headers only, not verified), plus the
   * segments that start with a later sequence. A crash tears only records that were in flight, so
   * later records past the stop mean the damage may be inside the journal. Costs one read of at
   * most a segment per shard at mount.
   */
  private int laterRecords(int segment, long from, long lastSeq, long minEpoch) throws IOException {
    int later = 0;
    long seq = lastSeq;
    long segBytes = sb.segmentBytes();
    long start = Blocks.roundUp(from);
    if (segment >= 0 && start < segBytes) {
      MemorySegment rest = record.asSlice(0, segBytes - start);
      readFully(sb.segmentOffset(segment) + start, rest);
      long pos = 0;
      while (pos + Blocks.SIZE <= rest.byteSize()) {
        RecordHeader h = RecordHeader.peek(rest.asSlice(pos), (int) (rest.byteSize() - pos));
        if (h != null && h.belongsTo(sb) && h.seq() > seq && h.epoch() >= minEpoch) {
          later++;
          seq = h.seq();
          pos += h.length();
        } else {
          pos += Blocks.SIZE;
        }
      }
    }
    segmentStartingWith(lastSeq + 1, minEpoch); // loads the segment heads
    for (RecordHeader h : heads) {
      if (h != null && h.seq() > seq && h.epoch() >= minEpoch) {
        later++;
      }
    }
    return later;
  }

  /** Null when header crc and every data block crc match, else why not. */
  private String verify(MemorySegment rec, RecordHeader h) {
    if (!h.verify(rec, crc)) {
      return "header/metadata crc32c mismatch";
    }
    long dataStart = (long) h.metaBlocks() * Blocks.SIZE;
    String[] bad = {null};
    DataBlockVisitor check =
        new DataBlockVisitor() {
          @Override
          protected void block(long id, int block, int dataIndex, int expected) {
            long at = dataStart + (long) dataIndex * Blocks.SIZE;
            if (dataIndex >= h.dataBlocks() || Blocks.crc(crc, rec, at, Blocks.SIZE) != expected) {
              bad[0] = "data block " + dataIndex + " crc32c mismatch";
            }
          }

          @Override
          protected boolean wantsMore() {
            return bad[0] == null;
          }
        };
    try {
      int blocks =
          DeltaReader.read(
              rec, RecordDescriptor.HEADER_LENGTH, h.metaLength(), h.deltaCount(), check);
      if (blocks != h.dataBlocks()) {
        return "deltas use " + blocks + " data blocks, header says " + h.dataBlocks();
      }
    } catch (CorruptRecordException e) {
      return e.getMessage();
    }
    return bad[0];
  }

  private int segmentStartingWith(long seq, long minEpoch) throws IOException {
    if (heads == null) {
      heads = new RecordHeader[sb.segmentCount()];
      for (int s = 0; s < heads.length; s++) {
        readFully(sb.segmentOffset(s), head);
        RecordHeader h = RecordHeader.peek(head, sb.segmentBytes());
        heads[s] = h != null && h.belongsTo(sb) ? h : null;
      }
    }
    int best = -1;
    for (int s = 0; s < heads.length; s++) {
      RecordHeader h = heads[s];
      if (h != null
          && h.seq() == seq
          && h.epoch() >= minEpoch
          && (best < 0 || h.epoch() > heads[best].epoch())) {
        best = s;
      }
    }
    return best;
  }

  private void readFully(long offset, MemorySegment buf) throws IOException {
    int n = io.read(file, offset, buf);
    if (n < buf.byteSize()) {
      throw new IOException(
          "short read of " + n + " bytes at " + offset + " in " + file.path() + ": truncated?");
    }
  }
}
