package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** A superblock with a right crc but a geometry no mount can use is refused, not returned. */
class SuperblockGeometryTest {
  private static final CRC32C CRC = new CRC32C();
  private static final int SEG = 1 << 20;

  private static Superblock roundTrip(Superblock sb) throws CorruptRecordException {
    MemorySegment block = MemorySegment.ofArray(new byte[Blocks.SIZE]);
    sb.encode(block, CRC);
    return Superblock.decode(block, CRC);
  }

  @Test
  void saneGeometryDecodes() throws CorruptRecordException {
    Superblock sb = new Superblock(1, 2, 8192 + 4L * SEG, SEG, 4, 8192, 0, 1, 1);
    assertEquals(sb, roundTrip(sb));
  }

  @Test
  void insaneGeometryIsCorrupt() {
    Superblock[] bad = {
      new Superblock(2, 2, 8192 + 4L * SEG, SEG, 4, 8192, 0, 1, 1), // shard >= shardCount
      new Superblock(0, -1, 8192 + 4L * SEG, SEG, 4, 8192, 0, 1, 1), // no shards
      new Superblock(0, 1, 1024 + 4L * SEG, SEG, 4, 1024, 0, 1, 1), // over the copies, unaligned
      new Superblock(0, 1, 12288 + 4L * SEG, SEG, 4, 12289, 0, 1, 1), // unaligned
      new Superblock(0, 1, Long.MIN_VALUE, SEG, 4, 8192, 0, 1, 1), // negative space
      new Superblock(0, 1, 8192 + 4L * SEG, SEG, 5, 8192, 0, 1, 1), // past shardBytes
    };
    for (Superblock sb : bad) {
      assertThrows(CorruptRecordException.class, () -> roundTrip(sb), sb.toString());
    }
  }
}
