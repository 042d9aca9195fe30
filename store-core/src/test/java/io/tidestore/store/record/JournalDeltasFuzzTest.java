package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.testing.AllocationBound;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes {@link DeltaReader#read} over the deltas region of a record, as replay and the cleaner
 * call it. Input: byte 0 is the delta count the header claims, the rest the region; the region sits
 * at the header's end in a buffer with bytes after it (0xff) that the reader must not take. The
 * contract (docs/format.md, "Deltas"): a CorruptRecordException, or deltas a replay can apply: a
 * CREATE with a pool an object key can have and a name of 1 to {@link ObjectKey#MAX_NAME_BYTES}
 * bytes; block ranges ({@code [first, first + blocks)}, a RELOCATE's block) inside the largest
 * object's {@link DeltaReader#MAX_OBJECT_BLOCKS} blocks, without int overflow, and a TRUNCATE's
 * size and a WRITE's end byte within 0 to {@link ShardStore#MAX_OBJECT_BYTES}; a RELOCATE's old
 * location non-negative; each WRITE's crcs inside the region; dataIndex the running count of data
 * blocks, and the returned count their total. The visited deltas, written again with {@link
 * DeltaWriter}, are the region byte for byte (so names were read as the exact UTF-8 they are,
 * lengths agree, and nothing was skipped). Allocation bounded by the input.
 */
class JournalDeltasFuzzTest {
  private static final byte TRAILER = (byte) 0xff;

  @FuzzTest
  void read(byte[] input) {
    if (input.length < 1) {
      return;
    }
    AllocationBound.check("deltas", input.length, 64 << 10, 64, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    int count = input[0] & 0xff;
    int length = input.length - 1;
    try (Arena arena = Arena.ofConfined()) {
      long start = RecordDescriptor.HEADER_LENGTH;
      MemorySegment meta = arena.allocate(start + length + 64);
      meta.fill(TRAILER);
      MemorySegment.copy(MemorySegment.ofArray(input), 1, meta, start, length);
      Checker checker = new Checker(meta, start, start + length);
      int blocks;
      try {
        blocks = DeltaReader.read(meta, start, length, count, checker);
      } catch (CorruptRecordException e) {
        return; // the documented refusal
      }
      assertEquals(count, checker.deltas, "visited deltas");
      assertEquals(checker.dataIndex, blocks, "data blocks returned vs. visited");
      assertEquals(count, checker.writer.count(), "deltas written again");
      assertArrayEquals(
          meta.asSlice(start, length).toArray(ValueLayout.JAVA_BYTE),
          checker.writer.bytes().asSlice(0, checker.writer.length()).toArray(ValueLayout.JAVA_BYTE),
          "the deltas written again differ from the region");
    }
  }

  /** Checks each delta as it is visited and writes it again. */
  private static final class Checker implements DeltaVisitor {
    final DeltaWriter writer = new DeltaWriter();
    private final MemorySegment meta;
    private final long regionStart;
    private final long regionEnd;
    int dataIndex;
    int deltas;

    Checker(MemorySegment meta, long regionStart, long regionEnd) {
      this.meta = meta;
      this.regionStart = regionStart;
      this.regionEnd = regionEnd;
    }

    @Override
    public void create(long id, long pool, String name) {
      deltas++;
      byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
      assertTrue(pool >= 0, "CREATE with a negative pool " + pool);
      assertTrue(
          bytes.length > 0 && bytes.length <= ObjectKey.MAX_NAME_BYTES,
          "CREATE with a name of " + bytes.length + " bytes");
      writer.create(id, pool, bytes);
    }

    @Override
    public void write(
        long id,
        int firstBlock,
        int blocks,
        long endByte,
        MemorySegment crcs,
        long crcOffset,
        int dataIndex) {
      deltas++;
      assertRange("WRITE", firstBlock, blocks);
      assertBytes("WRITE end byte", endByte);
      assertEquals(meta, crcs, "crcs not in the record's metadata");
      assertTrue(
          crcOffset >= regionStart && crcOffset + 4L * blocks <= regionEnd,
          "WRITE crcs outside the deltas region");
      assertEquals(this.dataIndex, dataIndex, "WRITE dataIndex");
      this.dataIndex += blocks;
      writer.write(id, firstBlock, blocks, endByte);
      for (int i = 0; i < blocks; i++) {
        writer.crc(crcs.get(Blocks.INT, crcOffset + 4L * i));
      }
    }

    @Override
    public void truncate(long id, long size) {
      deltas++;
      assertBytes("TRUNCATE size", size);
      writer.truncate(id, size);
    }

    @Override
    public void remove(long id) {
      deltas++;
      writer.remove(id);
    }

    @Override
    public void setXattr(long id, String name, byte[] value) {
      deltas++;
      writer.setXattr(id, name, value);
    }

    @Override
    public void removeXattr(long id, String name) {
      deltas++;
      writer.removeXattr(id, name);
    }

    @Override
    public void relocate(long id, int block, int oldLocation, int crc, int dataIndex) {
      deltas++;
      assertRange("RELOCATE", block, 1);
      assertTrue(oldLocation >= 0, "RELOCATE from a negative location " + oldLocation);
      assertEquals(this.dataIndex, dataIndex, "RELOCATE dataIndex");
      this.dataIndex++;
      writer.relocate(id, block, oldLocation, crc);
    }

    @Override
    public void punch(long id, int firstBlock, int blocks) {
      deltas++;
      assertRange("PUNCH", firstBlock, blocks);
      writer.punch(id, firstBlock, blocks);
    }

    private static void assertRange(String delta, int first, int blocks) {
      assertTrue(
          first >= 0 && blocks >= 0 && (long) first + blocks <= DeltaReader.MAX_OBJECT_BLOCKS,
          delta
              + " blocks ["
              + first
              + ", "
              + first
              + " + "
              + blocks
              + ") past the largest object");
    }

    private static void assertBytes(String what, long bytes) {
      assertTrue(
          bytes >= 0 && bytes <= ShardStore.MAX_OBJECT_BYTES,
          what + " " + bytes + " outside the largest object");
    }
  }
}
