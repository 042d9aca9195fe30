package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.util.zip.CRC32C;

/**
 * Fuzzes {@link Superblock#decode} with a block read from a shard's space. The first input byte
 * says whether to make the crc right before decoding (else the fuzzer would almost never get past
 * it to the geometry checks); the rest is the block. The contract (docs/format.md): a
 * CorruptRecordException, or a superblock whose geometry a mount can use: 0 <= shard < shardCount,
 * segments of whole blocks laid out after the two superblock copies, block-aligned, inside
 * shardBytes (computed without overflow). No other exception.
 */
class SuperblockFuzzTest {
  private final CRC32C crc = new CRC32C();

  @FuzzTest
  void decode(byte[] input) {
    if (input.length == 0) {
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment block = arena.allocate(Blocks.SIZE);
      MemorySegment.copy(
          MemorySegment.ofArray(input), 1, block, 0, Math.min(input.length - 1, Blocks.SIZE));
      if ((input[0] & 1) != 0) {
        block.set(
            Blocks.INT,
            SuperblockDescriptor.CRC_OFFSET,
            Blocks.crc(crc, block, 0, SuperblockDescriptor.CRC_OFFSET));
      }
      Superblock sb;
      try {
        sb = Superblock.decode(block, crc);
      } catch (CorruptRecordException e) {
        return; // the documented refusal
      }
      assertUsable(sb);
    }
  }

  private static void assertUsable(Superblock sb) {
    assertTrue(sb.shardCount() > 0 && sb.shard() >= 0 && sb.shard() < sb.shardCount(), "" + sb);
    assertTrue(sb.segmentBytes() > 0 && sb.segmentBytes() % Blocks.SIZE == 0, "" + sb);
    assertTrue(sb.segmentCount() > 0, "" + sb);
    assertTrue(
        sb.firstSegmentOffset() >= (long) SuperblockDescriptor.COPIES * Blocks.SIZE,
        "segments over the superblock copies: " + sb);
    assertEquals(0, sb.firstSegmentOffset() % Blocks.SIZE, "unaligned segments: " + sb);
    BigInteger end =
        BigInteger.valueOf(sb.segmentBytes())
            .multiply(BigInteger.valueOf(sb.segmentCount()))
            .add(BigInteger.valueOf(sb.firstSegmentOffset()));
    assertTrue(end.compareTo(BigInteger.valueOf(sb.shardBytes())) <= 0, "past shardBytes: " + sb);
  }
}
