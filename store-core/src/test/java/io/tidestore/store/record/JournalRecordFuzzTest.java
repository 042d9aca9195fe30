package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.testing.AllocationBound;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * Fuzzes the journal record header as replay reads it: {@link RecordHeader#peek} of the block at a
 * record position, then {@link RecordHeader#verify} of its crc. Input: byte 0 holds flags (bit 0:
 * make the header crc right, bit 1: make the metaBlocks field agree with metaLength, so the fuzzer
 * gets past both to the length checks), byte 1 the room left in a 16-block segment (1 to 16 blocks:
 * peek's {@code maxLength}), the rest the bytes there. The contract (docs/format.md, "Journal
 * record"): null (not a record header), or a header with non-negative counts whose whole record,
 * header and deltas included, fits the room left ({@code length()} positive, whole blocks, at most
 * maxLength); verify never throws and accepts a crc the harness made right. Allocation bounded by
 * the input.
 */
class JournalRecordFuzzTest {
  private static final int SEGMENT_BLOCKS = 16;

  private final CRC32C crc = new CRC32C();

  @FuzzTest
  void decode(byte[] input) {
    if (input.length < 2) {
      return;
    }
    AllocationBound.check("record header", input.length, 64 << 10, 64, () -> exercise(input));
  }

  private void exercise(byte[] input) {
    int room = (1 + (input[1] & 0xff) % SEGMENT_BLOCKS) * Blocks.SIZE;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment buf = arena.allocate(room, Blocks.SIZE);
      MemorySegment.copy(MemorySegment.ofArray(input), 2, buf, 0, Math.min(input.length - 2, room));
      int metaLength = buf.get(Blocks.INT, RecordDescriptor.META_LENGTH_OFFSET);
      if ((input[0] & 2) != 0) {
        buf.set(
            Blocks.INT,
            RecordDescriptor.META_BLOCKS_OFFSET,
            RecordDescriptor.metaBlocks(metaLength));
      }
      boolean crcMade =
          (input[0] & 1) != 0
              && metaLength >= 0
              && RecordDescriptor.HEADER_LENGTH + (long) metaLength <= room;
      if (crcMade) {
        buf.set(Blocks.INT, RecordDescriptor.CRC_OFFSET, headerCrc(buf, metaLength));
      }
      RecordHeader h = RecordHeader.peek(buf, room);
      if (h == null) {
        return; // the documented refusal: no record header of this format here
      }
      assertUsable(h, buf, room);
      boolean verified = h.verify(buf, crc);
      if (crcMade) {
        assertTrue(verified, "a right crc fails to verify: " + h);
      }
    }
  }

  private static void assertUsable(RecordHeader h, MemorySegment buf, int room) {
    assertTrue(h.metaLength() >= 0 && h.dataBlocks() >= 0 && h.deltaCount() >= 0, "" + h);
    assertTrue(h.length() > 0 && h.length() <= room, "record outside the segment: " + h);
    assertEquals(0, h.length() % Blocks.SIZE, "record not whole blocks: " + h);
    assertTrue(
        (long) h.metaBlocks() * Blocks.SIZE
            >= RecordDescriptor.HEADER_LENGTH + (long) h.metaLength(),
        "deltas past the metadata blocks: " + h);
    assertEquals(
        h.length(),
        ((long) h.metaBlocks() + h.dataBlocks()) * Blocks.SIZE,
        "length is not metadata plus data blocks: " + h);
    short version = buf.get(Blocks.SHORT, RecordDescriptor.VERSION_OFFSET);
    assertTrue(
        version >= RecordDescriptor.OLDEST_VERSION && version <= RecordDescriptor.VERSION, "" + h);
    assertTrue(version >= 2 || h.storeId() == 0, "a format 1 record with a store id: " + h);
  }

  /** The header crc as docs/format.md defines it: bytes 0..59, then the metaLength delta bytes. */
  private int headerCrc(MemorySegment buf, int metaLength) {
    crc.reset();
    crc.update(buf.asSlice(0, RecordDescriptor.CRC_OFFSET).asByteBuffer());
    crc.update(buf.asSlice(RecordDescriptor.HEADER_LENGTH, metaLength).asByteBuffer());
    return (int) crc.getValue();
  }
}
