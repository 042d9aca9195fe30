package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ShardStore;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Deltas whose blocks or sizes lie outside the largest object are corrupt, however right their
 * record's crcs (docs/format.md, "Deltas"): replay grows an object's block array to the block a
 * WRITE names. The refusal names the value and the limit; the largest object's own last block and
 * size still read.
 */
class DeltaReaderLimitsTest {
  private static final int MAX_BLOCKS = DeltaReader.MAX_OBJECT_BLOCKS;
  private static final long MAX_BYTES = ShardStore.MAX_OBJECT_BYTES;

  @Test
  void theLimitIsTheLargestObjectInBlocks() {
    assertEquals(16384, MAX_BLOCKS);
  }

  static Stream<Arguments> outOfRange() {
    return Stream.of(
        refused(
            "WRITE past the last block", d -> write(d, MAX_BLOCKS, 1, 4096), "[16384, 16384 + 1)"),
        refused(
            "WRITE running past the last block",
            d -> write(d, MAX_BLOCKS - 1, 2, 4096),
            "[16383, 16383 + 2)"),
        refused(
            "WRITE near block 2^31",
            d -> write(d, Integer.MAX_VALUE - 1, 1, 4096),
            "[2147483646, 2147483646 + 1)"),
        refused(
            "WRITE end byte past the largest object",
            d -> write(d, 0, 1, MAX_BYTES + 1),
            "WRITE end byte 67108865"),
        refused(
            "TRUNCATE past the largest object",
            d -> d.truncate(1, MAX_BYTES + 1),
            "TRUNCATE size 67108865"),
        refused(
            "TRUNCATE to 2^44 bytes", d -> d.truncate(1, 1L << 44), "TRUNCATE size 17592186044416"),
        refused("PUNCH past the last block", d -> d.punch(1, 0, MAX_BLOCKS + 1), "[0, 0 + 16385)"),
        refused(
            "PUNCH whose count overflows an int",
            d -> d.punch(1, 2, Integer.MAX_VALUE),
            "[2, 2 + 2147483647)"),
        refused(
            "RELOCATE of a block past the last",
            d -> d.relocate(1, MAX_BLOCKS, 7, 0x1234),
            "[16384, 16384 + 1)"));
  }

  private static Arguments refused(String what, Consumer<DeltaWriter> delta, String value) {
    return Arguments.of(what, delta, value);
  }

  private static void write(DeltaWriter d, int first, int blocks, long endByte) {
    d.write(1, first, blocks, endByte);
    for (int i = 0; i < blocks; i++) {
      d.crc(i);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("outOfRange")
  void isRefusedNamingTheValueAndTheLimit(String what, Consumer<DeltaWriter> delta, String value) {
    DeltaWriter d = new DeltaWriter();
    delta.accept(d);
    CorruptRecordException e = assertThrows(CorruptRecordException.class, () -> read(d), what);
    assertTrue(e.getMessage().contains(value), e.getMessage());
    String limit = e.getMessage().contains("blocks") ? "16384 blocks" : "67108864";
    assertTrue(e.getMessage().contains(limit), e.getMessage());
  }

  @Test
  void theLargestObjectsLastBlockAndSizeRead() throws CorruptRecordException {
    DeltaWriter d = new DeltaWriter();
    write(d, MAX_BLOCKS - 1, 1, MAX_BYTES);
    d.truncate(1, MAX_BYTES);
    d.punch(1, 0, MAX_BLOCKS);
    d.relocate(1, MAX_BLOCKS - 1, 7, 0x1234);
    assertEquals(2, read(d), "data blocks: the WRITE's and the RELOCATE's");
  }

  private static int read(DeltaWriter d) throws CorruptRecordException {
    return DeltaReader.read(
        d.bytes(), 0, d.length(), d.count(), new RecordCodecTest.DeltaVisitorAdapter());
  }
}
