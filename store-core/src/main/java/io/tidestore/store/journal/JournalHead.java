package io.tidestore.store.journal;

import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;

/**
 * Where the journal's next record goes: the open segment and the offset in it. Answers whether
 * records of given lengths fit without opening more segments than are allocatable, and places a
 * sealed record, opening a new segment when the open one cannot hold it (one record never spans
 * segments). Owner thread only.
 */
final class JournalHead {
  private final Superblock geometry;
  private final SegmentTable segments;
  private int segment;
  private long offset;

  JournalHead(Superblock geometry, SegmentTable segments, int segment, long offset) {
    this.geometry = geometry;
    this.segments = segments;
    this.segment = segment;
    this.offset = offset;
  }

  int segment() {
    return segment;
  }

  long offset() {
    return offset;
  }

  /** Bytes of a record with {@code metaLength} delta bytes and {@code dataBlocks} data blocks. */
  static long recordLength(int metaLength, int dataBlocks) {
    return (long) (RecordDescriptor.metaBlocks(metaLength) + dataBlocks) * Blocks.SIZE;
  }

  /** Blocks left in the open segment (0 when none is open). */
  int roomBlocks() {
    return segment < 0 ? 0 : (int) ((geometry.segmentBytes() - offset) / Blocks.SIZE);
  }

  /** Whether a record of {@code len} bytes is too long for any segment. */
  boolean tooLong(long len) {
    return len > geometry.segmentBytes();
  }

  /** New segments the journal must open to place a record of {@code length} bytes. */
  int segmentsNeeded(long length) {
    return segmentsNeeded(length, 0);
  }

  /**
   * New segments the journal must open to place records of these lengths, in order (a length of 0
   * is no record). Two parameters rather than varargs: an array per call, on every reserve, would
   * be the write path's allocation per operation.
   */
  int segmentsNeeded(long first, long second) {
    long off = segment >= 0 ? offset : Long.MAX_VALUE / 2;
    int need = 0;
    if (off + first > geometry.segmentBytes()) {
      need++;
      off = 0;
    }
    off += first;
    if (second > 0 && off + second > geometry.segmentBytes()) {
      need++;
    }
    return need;
  }

  /** Whether {@code need} new segments can be opened leaving {@code keep} allocatable. */
  boolean hasSegments(int need, int keep) {
    return need == 0 || segments.allocatable() >= need + keep;
  }

  /**
   * Places a record of {@code len} bytes with sequence {@code seq}: in the open segment if it fits,
   * else at the start of a newly allocated one. Returns false when no segment could be allocated
   * (the space accounting that admitted the record is broken).
   */
  boolean place(Batch b, long len, long seq) {
    if (segment < 0 || offset + len > geometry.segmentBytes()) {
      if (segment >= 0) {
        segments.state(segment, SegmentTable.USED);
      }
      segment = segments.allocate();
      offset = 0;
    }
    if (segment < 0) {
      return false;
    }
    b.segment = segment;
    b.offsetInSegment = offset;
    b.position = geometry.segmentOffset(segment) + offset;
    offset += len;
    segments.noteRecord(segment, seq);
    return true;
  }
}
